// Package pages holds the full pages of the web app.
package pages

import "strconv"

func statusText(code int) string { return "Error " + strconv.Itoa(code) }

func itoa(n int) string { return strconv.Itoa(n) }
