package handlers

import "github.com/ouncehq/ounce/internal/portfolio"

// The holdings input parsers live in internal/portfolio. API key names share their text rule
// (trimmed, no control characters, bounded length) until the account area has its own.

// cleanText is portfolio.CleanText: the clean text, or a message saying what is wrong.
func cleanText(v string, max int, multiline bool) (string, string) {
	return portfolio.CleanText(v, max, multiline)
}
