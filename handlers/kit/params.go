package kit

import (
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/apperr"
)

// The one strict reader of numeric query parameters. Every route reads integers through it,
// so " 5 ", "1.5", "abc", "+5" and values past int range answer the same way everywhere:
// surrounding spaces are trimmed, anything but an optional minus and digits is "must be an
// integer", and a value outside [lo, hi] (overflow included) is "must be between lo and hi".

// ParseIntParam reads raw as an integer in [lo, hi]; def when raw is empty or blank.
func ParseIntParam(name, raw string, def, lo, hi int) (int, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return def, nil
	}
	digits := strings.TrimPrefix(raw, "-")
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return 0, apperr.InvalidField(name, "must be an integer")
	}
	v, err := strconv.Atoi(raw)
	if err != nil || v < lo || v > hi {
		// Only overflow fails here once the characters are digits: it is out of range too.
		return 0, apperr.InvalidField(name, "must be between "+strconv.Itoa(lo)+" and "+strconv.Itoa(hi))
	}
	return v, nil
}

// QueryInt reads an integer query parameter within [lo, hi], def when absent.
func QueryInt(c *fiber.Ctx, name string, def, lo, hi int) (int, error) {
	return ParseIntParam(name, c.Query(name), def, lo, hi)
}

// The documentation of the common query parameters, next to their reader.

// Page size and skip of the lists PageParams reads.
const (
	DefaultPageLimit = 50
	MaxPageLimit     = 200
)

// LimitParam documents a page size read as limit: 1 to max, def when absent.
func LimitParam(max, def int, example string) Param {
	return Param{Name: "limit", In: "query", Description: "Page size.", Schema: Schema{"type": "integer", "minimum": 1, "maximum": max, "default": def}, Example: example}
}

// OffsetParam documents offset, how many of a list's items (skipped names them, "Items",
// "Comments") a page skips: from 0 up to max, or with no documented maximum when max is 0.
func OffsetParam(skipped string, max int, example string) Param {
	s := Schema{"type": "integer", "minimum": 0, "default": 0}
	if max > 0 {
		s["maximum"] = max
	}
	return Param{Name: "offset", In: "query", Description: skipped + " to skip.", Schema: s, Example: example}
}

// PageQuery documents the limit and offset that PageParams reads.
func PageQuery() []Param {
	return []Param{LimitParam(MaxPageLimit, DefaultPageLimit, ""), OffsetParam("Items", 0, "")}
}

// MetalFilter documents metal as an optional filter of a list.
func MetalFilter(example string) Param {
	return Param{Name: "metal", In: "query", Description: "Only this metal.", Schema: MetalSchema(), Example: example}
}
