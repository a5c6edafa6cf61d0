// Package apperr holds the domain errors every service returns. A service says what went wrong
// in domain terms (not found, invalid field, membership required…); the transports map a kind
// to a status code in one place each (handlers for HTTP, cmd for exit codes). Nothing here
// knows about HTTP.
package apperr

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Kind classifies a domain error.
type Kind int

// The kinds of domain error. Internal is the zero value: anything not classified is a bug or
// an outage on our side and is never shown to a client in detail.
const (
	Internal Kind = iota
	// NotFound: the thing does not exist, or belongs to someone else (never told apart).
	NotFound
	// Invalid: the input is wrong; Fields names each bad field and why.
	Invalid
	// Unprocessable: the input is well-formed but cannot be used as a whole (e.g. an import
	// whose rows have problems); Details carries the specifics.
	Unprocessable
	// Conflict: the request contradicts stored state (a sale exceeding holdings, a duplicate).
	Conflict
	// Unauthorized: no or bad credentials.
	Unauthorized
	// Forbidden: authenticated, but not allowed.
	Forbidden
	// MembershipRequired: the feature needs Gold membership.
	MembershipRequired
	// RateLimited: too many attempts; RetryAfter says when to come back.
	RateLimited
	// TooLarge: the input is over a size limit.
	TooLarge
	// Unavailable: a dependency (provider, tool, configuration) is missing or down.
	Unavailable
)

var kindNames = [...]string{"internal", "not found", "invalid", "unprocessable", "conflict", "unauthorized", "forbidden", "membership required", "rate limited", "too large", "unavailable"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// FieldError names one bad input field and the reason, written for people ("must be 1 or more").
type FieldError struct {
	Field   string
	Message string
}

// Error is a domain error.
type Error struct {
	Kind Kind
	// Msg is the human-readable explanation shown to the client (for every kind but Internal).
	Msg string
	// Fields lists the bad fields of an Invalid error.
	Fields []FieldError
	// RetryAfter is set on RateLimited (and may be on Unavailable).
	RetryAfter time.Duration
	// Details carries kind-specific members a transport may publish (e.g. import row errors).
	Details map[string]any
	// Err is the underlying cause, for logs only.
	Err error
}

func (e *Error) Error() string {
	s := e.Kind.String()
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap exposes the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is matches another *Error of the same kind, so errors.Is(err, apperr.ErrNotFound) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Msg == "" && t.Fields == nil && t.Kind == e.Kind
}

// Sentinels for errors.Is comparisons by kind.
var (
	ErrNotFound           = &Error{Kind: NotFound}
	ErrInvalid            = &Error{Kind: Invalid}
	ErrConflict           = &Error{Kind: Conflict}
	ErrForbidden          = &Error{Kind: Forbidden}
	ErrMembershipRequired = &Error{Kind: MembershipRequired}
	ErrRateLimited        = &Error{Kind: RateLimited}
	ErrUnavailable        = &Error{Kind: Unavailable}
	ErrUnauthorized       = &Error{Kind: Unauthorized}
)

// New builds an error of a kind with a message.
func New(k Kind, format string, args ...any) *Error {
	return &Error{Kind: k, Msg: fmt.Sprintf(format, args...)}
}

// Wrap classifies a cause.
func Wrap(k Kind, err error, msg string) *Error { return &Error{Kind: k, Msg: msg, Err: err} }

// NotFoundf says what was not found: NotFoundf("holding") → "holding not found".
func NotFoundf(what string) *Error { return &Error{Kind: NotFound, Msg: what + " not found"} }

// InvalidField is one bad field.
func InvalidField(field, message string) *Error {
	return &Error{Kind: Invalid, Msg: field + ": " + message, Fields: []FieldError{{field, message}}}
}

// InvalidFields is several bad fields (nil when fields is empty, so callers can return it
// directly after collecting).
func InvalidFields(fields []FieldError) error {
	if len(fields) == 0 {
		return nil
	}
	msg := fields[0].Field + ": " + fields[0].Message
	if len(fields) > 1 {
		msg += fmt.Sprintf(" (and %d more)", len(fields)-1)
	}
	return &Error{Kind: Invalid, Msg: msg, Fields: fields}
}

// ConflictF is a conflict with stored state.
func ConflictF(format string, args ...any) *Error { return New(Conflict, format, args...) }

// ForbiddenF is an authenticated caller doing what they may not.
func ForbiddenF(format string, args ...any) *Error { return New(Forbidden, format, args...) }

// Membership says a feature needs Gold.
func Membership(feature string) *Error {
	return &Error{Kind: MembershipRequired, Msg: feature + " needs Gold membership"}
}

// Limited is a rate limit with the time until it resets.
func Limited(retry time.Duration, format string, args ...any) *Error {
	e := New(RateLimited, format, args...)
	e.RetryAfter = retry
	return e
}

// UnavailableF says a dependency is missing or down.
func UnavailableF(format string, args ...any) *Error { return New(Unavailable, format, args...) }

// As returns the domain error in err's chain, if any.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// KindOf is the kind of err (Internal for unclassified errors, and for nil).
func KindOf(err error) Kind {
	if e, ok := As(err); ok {
		return e.Kind
	}
	return Internal
}

// FieldsOf returns the bad fields of an Invalid error (nil otherwise).
func FieldsOf(err error) []FieldError {
	if e, ok := As(err); ok && e.Kind == Invalid {
		return e.Fields
	}
	return nil
}

// Sentence capitalises a field message for display on its own ("must be 1 or more" →
// "Must be 1 or more."), the one voice every page uses.
func Sentence(msg string) string {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return ""
	}
	msg = strings.ToUpper(msg[:1]) + msg[1:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}
