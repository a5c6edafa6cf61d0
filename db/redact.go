package db

import (
	"regexp"
	"strings"
)

// Connection strings carry passwords, and drivers quote them back in errors (a malformed
// DATABASE_URL comes back whole inside the parse error). Every error and log line that may
// hold one goes through RedactURL.
var (
	// scheme://user:password@ — the password is anything up to the last @ before the host.
	urlPassword = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^:/@\s"']*:)[^\s"']*@`)
	// password=… in key/value connection strings and query parameters.
	kvPassword = regexp.MustCompile(`(?i)(password|passwd|pwd|sslpassword)=("[^"]*"|'[^']*'|[^\s&"']*)`)
)

// RedactURL replaces the passwords of any connection strings in s with "xxxxx".
func RedactURL(s string) string {
	if !strings.Contains(s, "://") && !strings.Contains(strings.ToLower(s), "pass") && !strings.Contains(strings.ToLower(s), "pwd") {
		return s
	}
	s = urlPassword.ReplaceAllString(s, "${1}xxxxx@")
	return kvPassword.ReplaceAllString(s, "${1}=xxxxx")
}

// redactedError hides connection-string passwords in an error's text and keeps its chain.
type redactedError struct{ err error }

func (e redactedError) Error() string { return RedactURL(e.err.Error()) }
func (e redactedError) Unwrap() error { return e.err }

// Redacted wraps err so its text never shows a connection string's password (nil stays nil).
func Redacted(err error) error {
	if err == nil {
		return nil
	}
	return redactedError{err}
}
