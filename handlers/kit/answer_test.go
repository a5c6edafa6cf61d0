package kit

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/account"
)

// answerApp serves one handler; the request is signed in as member 7 unless anon.
func answerApp(t *testing.T, anon bool, h fiber.Handler) (*http.Response, string) {
	t.Helper()
	app := fiber.New(fiber.Config{ErrorHandler: func(c *fiber.Ctx, err error) error {
		return WriteProblem(c, AsProblem(err))
	}})
	app.Post("/", func(c *fiber.Ctx) error {
		if !anon {
			SetUser(c, account.User{ID: 7})
		}
		return h(c)
	})
	res, err := app.Test(httptest.NewRequest("POST", "/", strings.NewReader(`{"n":2}`)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

type answerIn struct{ N int }

func parseAnswerIn(raw []byte) (answerIn, error) {
	if !strings.Contains(string(raw), `"n":2`) {
		return answerIn{}, Invalid("n", "must be 2")
	}
	return answerIn{N: 2}, nil
}

// The member-JSON helpers call for the signed-in member and write conv's result at the
// status; no member is 401 and call is never reached; call's error is the answer.
func TestMemberJSONShapes(t *testing.T) {
	called := false
	res, _ := answerApp(t, true, func(c *fiber.Ctx) error {
		return MemberJSON(c, http.StatusOK, func(u account.User) (int, error) { called = true; return 1, nil }, Same[int])
	})
	if res.StatusCode != http.StatusUnauthorized || called {
		t.Fatalf("anonymous: status %d, called %v", res.StatusCode, called)
	}

	res, body := answerApp(t, false, func(c *fiber.Ctx) error {
		return MemberBodyJSON(c, http.StatusCreated, parseAnswerIn, func(u account.User, in answerIn) (int64, error) {
			return u.ID * int64(in.N), nil
		}, func(n int64) map[string]int64 { return map[string]int64{"n": n} })
	})
	if res.StatusCode != http.StatusCreated || body != `{"n":14}` || res.Header.Get(fiber.HeaderCacheControl) != "" {
		t.Fatalf("body call: %d %q %q", res.StatusCode, body, res.Header.Get(fiber.HeaderCacheControl))
	}

	res, body = answerApp(t, false, func(c *fiber.Ctx) error {
		return PrivateMemberJSON(c, func(u account.User) (string, error) { return "", NotFound("holding") }, Same[string])
	})
	if res.StatusCode != http.StatusNotFound || res.Header.Get(fiber.HeaderCacheControl) != "" || !strings.Contains(body, "not-found") {
		t.Fatalf("failed call: %d %q %q", res.StatusCode, res.Header.Get(fiber.HeaderCacheControl), body)
	}

	res, body = answerApp(t, false, func(c *fiber.Ctx) error {
		return PrivateMemberJSON(c, func(u account.User) ([]int, error) { return nil, nil }, func(v []int) []int { return MapSlice(v, Same[int]) })
	})
	if res.StatusCode != http.StatusOK || res.Header.Get(fiber.HeaderCacheControl) != "private, no-store" || body != "[]" {
		t.Fatalf("private answer: %d %q %q", res.StatusCode, res.Header.Get(fiber.HeaderCacheControl), body)
	}

	res, _ = answerApp(t, false, func(c *fiber.Ctx) error {
		return MemberNoContent(c, func(u account.User) error { return nil })
	})
	if res.StatusCode != http.StatusNoContent {
		t.Fatalf("no content: %d", res.StatusCode)
	}

	res, _ = answerApp(t, false, func(c *fiber.Ctx) error {
		return JSONResult(c, nil, errors.New("boom"))
	})
	if res.StatusCode != http.StatusInternalServerError {
		t.Fatalf("JSONResult error: %d", res.StatusCode)
	}
}
