package kit

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/views/components"
	"github.com/ouncehq/ounce/views/pages"
)

// ErrorHandler is the one place errors become responses: problem+json under /v1 (and for
// clients that ask for JSON), a toast for HTMX, an error page otherwise.
func (h *Base) ErrorHandler(c *fiber.Ctx, err error) error {
	var p *Problem
	var fe *fiber.Error
	switch {
	case errors.As(err, &fe):
		p = fiberProblem(fe)
	default:
		p = AsProblem(err)
	}
	rid := RequestID(c)
	attrs := []any{"request_id", rid, "method", c.Method(), "path", c.Path(), "status", p.Status}
	if p.Status >= 500 {
		h.Log.Error("request failed", append(attrs, "err", err.Error())...)
	} else {
		h.Log.Warn("request refused", append(attrs, "problem", p.Type)...)
	}
	if p.RetryAfter > 0 {
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(p.RetryAfter))
	}
	if p.Status == http.StatusUnauthorized && IsAPIPath(c.Path()) {
		c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="ounce"`)
	}
	// A request whose headers could not be read has no path to go by: it gets the problem.
	if IsAPIPath(c.Path()) || p.Status == http.StatusRequestHeaderFieldsTooLarge || strings.Contains(c.Get(fiber.HeaderAccept), "json") && !strings.Contains(c.Get(fiber.HeaderAccept), "html") {
		return WriteProblem(c, p)
	}
	c.Response().ResetBody()
	if IsHTMX(c) {
		c.Set("HX-Retarget", "#toasts")
		c.Set("HX-Reswap", "beforeend")
		return Render(c, p.Status, components.Toast("error", ErrorSentence(p)))
	}
	detail := ErrorSentence(p)
	if p.Status == http.StatusNotFound {
		detail = "There is nothing at this address."
	}
	return Render(c, p.Status, pages.ErrorPage(h.Meta(c, p.Title, ""), p.Status, p.Title, detail, rid, p.Type == "/problems/"+ProbMembership))
}

// WriteProblem writes a problem+json body.
func WriteProblem(c *fiber.Ctx, p *Problem) error {
	body := map[string]any{"type": p.Type, "title": p.Title, "status": p.Status}
	if p.Detail != "" {
		body["detail"] = p.Detail
	}
	if len(p.Errors) > 0 {
		body["errors"] = p.Errors
	}
	for k, v := range p.Extra {
		body[k] = v
	}
	if err := WriteJSON(c, p.Status, body); err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, "application/problem+json")
	return nil
}

// IsAPIPath reports whether a path belongs to the JSON API.
func IsAPIPath(p string) bool { return p == "/v1" || strings.HasPrefix(p, "/v1/") }

func fiberProblem(fe *fiber.Error) *Problem {
	switch fe.Code {
	case http.StatusNotFound:
		return NewProblem(http.StatusNotFound, ProbNotFound, "no such route")
	case http.StatusMethodNotAllowed:
		return NewProblem(http.StatusMethodNotAllowed, ProbInvalid, "method not allowed on this route")
	case http.StatusRequestEntityTooLarge:
		return NewProblem(http.StatusRequestEntityTooLarge, ProbTooLarge, "request body too large")
	case http.StatusRequestHeaderFieldsTooLarge:
		return NewProblem(fe.Code, ProbInvalid, "the request line and headers must be at most 16 KiB together; shorten the query string")
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return NewProblem(fe.Code, ProbInvalid, fe.Message)
	case http.StatusForbidden:
		return NewProblem(fe.Code, ProbForbidden, fe.Message)
	case http.StatusTooManyRequests:
		return NewProblem(fe.Code, ProbRateLimited, fe.Message)
	}
	if fe.Code >= 500 {
		slog.Default().Error("fiber error", "code", fe.Code, "msg", fe.Message)
		return NewProblem(http.StatusInternalServerError, ProbInternal, "something went wrong on our side")
	}
	return NewProblem(fe.Code, ProbInvalid, fe.Message)
}
