package kit

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/ouncehq/ounce/internal/apperr"
)

// Every domain error kind maps to one status and problem type, whatever wraps it.
func TestDomainErrorMapping(t *testing.T) {
	cases := []struct {
		err    error
		status int
		slug   string
	}{
		{apperr.NotFoundf("holding"), http.StatusNotFound, ProbNotFound},
		{apperr.InvalidField("quantity", "must be 1 or more"), http.StatusBadRequest, ProbInvalid},
		{apperr.New(apperr.Unprocessable, "rows have problems"), http.StatusUnprocessableEntity, ProbUnprocessable},
		{apperr.ConflictF("more units than are held"), http.StatusConflict, ProbConflict},
		{apperr.New(apperr.Unauthorized, "sign in"), http.StatusUnauthorized, ProbUnauthorized},
		{apperr.ForbiddenF("not yours"), http.StatusForbidden, ProbForbidden},
		{apperr.Membership("the portfolio"), http.StatusForbidden, ProbMembership},
		{apperr.Limited(1500*time.Millisecond, "slow down"), http.StatusTooManyRequests, ProbRateLimited},
		{apperr.New(apperr.TooLarge, "too big"), http.StatusRequestEntityTooLarge, ProbTooLarge},
		{apperr.UnavailableF("tesseract is not installed"), http.StatusServiceUnavailable, ProbUnavailable},
		{fmt.Errorf("saving: %w", apperr.NotFoundf("sale")), http.StatusNotFound, ProbNotFound},
		{apperr.StoreNotFound, http.StatusNotFound, ProbNotFound},
		{errors.New("connection refused to 10.0.0.1"), http.StatusInternalServerError, ProbInternal},
		{apperr.Wrap(apperr.Internal, errors.New("disk full"), "boom"), http.StatusInternalServerError, ProbInternal},
	}
	for _, c := range cases {
		p := AsProblem(c.err)
		if p.Status != c.status || p.Type != "/problems/"+c.slug {
			t.Errorf("%v → %d %s, want %d %s", c.err, p.Status, p.Type, c.status, c.slug)
		}
		if p.Status == http.StatusInternalServerError && p.Detail != "something went wrong on our side; the request id identifies it in our logs" {
			t.Errorf("internal detail leaked: %q", p.Detail)
		}
	}
	p := AsProblem(apperr.InvalidFields([]apperr.FieldError{{Field: "metal", Message: "must be one of gold, silver, platinum, palladium"}, {Field: "quantity", Message: "must be 1 or more"}}))
	if len(p.Errors) != 2 || p.Errors[1].Field != "quantity" || p.Detail != "metal: must be one of gold, silver, platinum, palladium (and 1 more)" {
		t.Errorf("fields: %+v", p)
	}
	if p := AsProblem(apperr.Limited(1500*time.Millisecond, "slow down")); p.RetryAfter != 2 {
		t.Errorf("retry after rounds up to whole seconds: %d", p.RetryAfter)
	}
	if !errors.Is(fmt.Errorf("x: %w", apperr.Membership("alerts")), apperr.ErrMembershipRequired) {
		t.Error("errors.Is by kind")
	}
	if apperr.InvalidFields(nil) != nil {
		t.Error("no fields, no error")
	}
}

func TestParseIntParamStrict(t *testing.T) {
	for raw, want := range map[string]string{"1.5": "must be an integer", "abc": "must be an integer", "+5": "must be an integer", "0x10": "must be an integer",
		"99999999999999999999999": "must be between 1 and 50", "51": "must be between 1 and 50", "-": "must be an integer"} {
		_, err := ParseIntParam("limit", raw, 20, 1, 50)
		if f := apperr.FieldsOf(err); len(f) != 1 || f[0].Field != "limit" || f[0].Message != want {
			t.Errorf("%q: %v, want %q", raw, err, want)
		}
	}
	for raw, want := range map[string]int{"": 20, "  ": 20, " 5 ": 5, "50": 50, "007": 7} {
		if got, err := ParseIntParam("limit", raw, 20, 1, 50); err != nil || got != want {
			t.Errorf("%q: %d %v, want %d", raw, got, err, want)
		}
	}
}
