package kit

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/ouncehq/ounce/internal/apperr"
)

// FieldError names one bad input field.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Problem is an RFC 9457 problem; every error a use case returns that a client should see is one.
type Problem struct {
	Type       string       `json:"type"`
	Title      string       `json:"title"`
	Status     int          `json:"status"`
	Detail     string       `json:"detail,omitempty"`
	Errors     []FieldError `json:"errors,omitempty"`
	RetryAfter int          `json:"-"`
	// Extra carries problem-specific members (import row errors use their own shape).
	Extra map[string]any `json:"-"`
}

func (p *Problem) Error() string { return fmt.Sprintf("%d %s: %s", p.Status, p.Type, p.Detail) }

// The problem type slugs of the API.
const (
	ProbInvalid       = "invalid-parameter"
	ProbUnauthorized  = "unauthorized"
	ProbMembership    = "membership-required"
	ProbForbidden     = "forbidden"
	ProbNotFound      = "not-found"
	ProbConflict      = "conflict"
	ProbRateLimited   = "rate-limited"
	ProbUnavailable   = "unavailable"
	ProbInternal      = "internal"
	ProbTooLarge      = "payload-too-large"
	ProbUnprocessable = "unprocessable"
	ProbUnsupported   = "unsupported-media-type"
)

var problemTitles = map[string]string{
	ProbInvalid:       "Invalid parameter",
	ProbUnauthorized:  "Authentication required",
	ProbMembership:    "Gold membership required",
	ProbForbidden:     "Forbidden",
	ProbNotFound:      "Not found",
	ProbConflict:      "Conflict",
	ProbRateLimited:   "Too many requests",
	ProbUnavailable:   "Service unavailable",
	ProbInternal:      "Internal error",
	ProbTooLarge:      "Payload too large",
	ProbUnprocessable: "Unprocessable content",
	ProbUnsupported:   "Unsupported media type",
}

// NewProblem builds a problem of the given slug and status.
func NewProblem(status int, slug, detail string, fields ...FieldError) *Problem {
	return &Problem{Type: "/problems/" + slug, Title: problemTitles[slug], Status: status, Detail: detail, Errors: fields}
}

// Invalid is the 400 for one bad field.
func Invalid(field, message string) *Problem {
	return NewProblem(http.StatusBadRequest, ProbInvalid, field+": "+message, FieldError{Field: field, Message: message})
}

// NotFound is the 404 problem.
func NotFound(what string) *Problem {
	return NewProblem(http.StatusNotFound, ProbNotFound, what+" not found")
}

// AsProblem maps any error to the problem a client sees; internals never leak. It is the one
// place a domain error (internal/apperr) becomes a status code.
func AsProblem(err error) *Problem {
	var p *Problem
	if errors.As(err, &p) {
		return p
	}
	if e, ok := apperr.As(err); ok && e.Kind != apperr.Internal {
		return domainProblem(e)
	}
	switch {
	case errors.Is(err, apperr.StoreNotFound):
		return NotFound("resource")
	case errors.Is(err, apperr.StoreConflict):
		return NewProblem(http.StatusConflict, ProbConflict, conflictDetail(err))
	}
	return NewProblem(http.StatusInternalServerError, ProbInternal, "something went wrong on our side; the request id identifies it in our logs")
}

// domainStatus is the status and problem slug of each domain error kind.
var domainStatus = map[apperr.Kind]struct {
	status int
	slug   string
}{
	apperr.NotFound:           {http.StatusNotFound, ProbNotFound},
	apperr.Invalid:            {http.StatusBadRequest, ProbInvalid},
	apperr.Unprocessable:      {http.StatusUnprocessableEntity, ProbUnprocessable},
	apperr.Conflict:           {http.StatusConflict, ProbConflict},
	apperr.Unauthorized:       {http.StatusUnauthorized, ProbUnauthorized},
	apperr.Forbidden:          {http.StatusForbidden, ProbForbidden},
	apperr.MembershipRequired: {http.StatusForbidden, ProbMembership},
	apperr.RateLimited:        {http.StatusTooManyRequests, ProbRateLimited},
	apperr.TooLarge:           {http.StatusRequestEntityTooLarge, ProbTooLarge},
	apperr.Unavailable:        {http.StatusServiceUnavailable, ProbUnavailable},
}

func domainProblem(e *apperr.Error) *Problem {
	st := domainStatus[e.Kind]
	var fields []FieldError
	for _, f := range e.Fields {
		fields = append(fields, FieldError{Field: f.Field, Message: f.Message})
	}
	p := NewProblem(st.status, st.slug, e.Msg, fields...)
	if e.RetryAfter > 0 {
		p.RetryAfter = int((e.RetryAfter + time.Second - 1) / time.Second)
	}
	if len(e.Details) > 0 {
		p.Extra = e.Details
	}
	return p
}

func conflictDetail(err error) string {
	// Conflict errors from db are written for people ("email already registered: conflict").
	msg := err.Error()
	if i := len(msg) - len(": "+apperr.StoreConflict.Error()); i > 0 && msg[i:] == ": "+apperr.StoreConflict.Error() {
		return msg[:i]
	}
	return msg
}
