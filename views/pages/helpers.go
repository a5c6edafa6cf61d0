// Package pages holds the full pages of the web app.
package pages

import "strconv"

func statusText(code int) string { return "Error " + strconv.Itoa(code) }

func itoa(n int) string { return strconv.Itoa(n) }

func anchor(s string) string {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			out = append(out, r)
		case r >= 'A' && r <= 'Z':
			out = append(out, r+32)
		default:
			out = append(out, '-')
		}
	}
	return string(out)
}

func joinStatuses(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}
