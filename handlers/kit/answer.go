package kit

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/account"
)

// The shapes a /v1 handler that acts for a member takes: find the bearer member, call a
// use case, and answer the wire form of its result as JSON, or hand the error to the one
// mapping of errors to problems (ErrorHandler). Each step's error ends the request.

// PrivateJSON answers v at status, marked for the member only and never stored by a cache.
func PrivateJSON(c *fiber.Ctx, status int, v any) error {
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	return WriteJSON(c, status, v)
}

// MemberJSON answers a bearer member's request: call acts for the member, and conv's wire
// form of its result is the JSON body at status.
func MemberJSON[S, T any](c *fiber.Ctx, status int, call func(u account.User) (S, error), conv func(S) T) error {
	return memberAnswer(c, call, func(v S) error { return WriteJSON(c, status, conv(v)) })
}

// PrivateMemberJSON is MemberJSON at 200 for an answer about the member's own stack, which
// no cache keeps (PrivateJSON).
func PrivateMemberJSON[S, T any](c *fiber.Ctx, call func(u account.User) (S, error), conv func(S) T) error {
	return memberAnswer(c, call, func(v S) error { return PrivateJSON(c, http.StatusOK, conv(v)) })
}

// MemberBodyJSON is MemberJSON for a request whose JSON body parse reads (and validates)
// before call acts on it.
func MemberBodyJSON[In, S, T any](c *fiber.Ctx, status int, parse func([]byte) (In, error), call func(u account.User, in In) (S, error), conv func(S) T) error {
	u, in, err := UserInput(c, parse)
	if err != nil {
		return err
	}
	v, err := call(u, in)
	if err != nil {
		return err
	}
	return WriteJSON(c, status, conv(v))
}

// MemberNoContent answers a bearer member's request that call carries out with 204.
func MemberNoContent(c *fiber.Ctx, call func(u account.User) error) error {
	u, err := RequireUser(c)
	if err != nil {
		return err
	}
	if err := call(u); err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}

// memberAnswer finds the bearer member, calls call for them and writes its result.
func memberAnswer[S any](c *fiber.Ctx, call func(u account.User) (S, error), write func(S) error) error {
	u, err := RequireUser(c)
	if err != nil {
		return err
	}
	v, err := call(u)
	if err != nil {
		return err
	}
	return write(v)
}

// Same is the identity conversion, for a call whose result is its wire form already.
func Same[T any](v T) T { return v }

// MapSlice converts every element of a list to its wire form; an empty list stays a list
// (JSON [], never null).
func MapSlice[S, T any](in []S, conv func(S) T) []T {
	out := make([]T, len(in))
	for i, v := range in {
		out[i] = conv(v)
	}
	return out
}

// JSONResult answers v at 200, or err when the call that made v failed: how a handler ends
// whose work is one call it shares with its MCP tool.
func JSONResult(c *fiber.Ctx, v any, err error) error {
	if err != nil {
		return err
	}
	return WriteJSON(c, http.StatusOK, v)
}
