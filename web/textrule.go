package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/handlers/kit"
)

// One rule for every text a request carries — path parameters, the query, form fields and
// every string (and key) of a JSON body: no NUL and no other C0 control character but tab,
// line feed and carriage return (the line breaks of multi-line text). PostgreSQL cannot store
// NUL in text and nothing we show means the others, so such a request is refused with 422
// naming the field before its handler runs: nothing is stored and no quota is counted.
// Uploaded files are not text fields and are left to the route that reads them.

// textMessage is the field rule the problem (and, in a page's voice, the error page) states.
const textMessage = "must not contain control characters (only tab and line breaks are allowed)"

// checkText is the middleware that applies the rule to a routed request.
func checkText(c *fiber.Ctx) error {
	if field, bad := controlField(c); bad {
		return kit.NewProblem(http.StatusUnprocessableEntity, kit.ProbUnprocessable, field+": "+textMessage,
			kit.FieldError{Field: field, Message: textMessage})
	}
	return c.Next()
}

// hasControl reports whether s holds a C0 control other than tab, LF and CR.
func hasControl[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < 0x20 && b != '\t' && b != '\n' && b != '\r' {
			return true
		}
	}
	return false
}

// controlField names the first input of the request that breaks the rule.
func controlField(c *fiber.Ctx) (string, bool) {
	for _, name := range c.Route().Params {
		raw := c.Params(name)
		v, err := url.PathUnescape(raw)
		if err != nil {
			v = raw
		}
		if hasControl(raw) || hasControl(v) {
			return name, true
		}
	}
	field, bad := "", false
	c.Request().URI().QueryArgs().VisitAll(func(k, v []byte) {
		if !bad && (hasControl(k) || hasControl(v)) {
			field, bad = fieldName(k), true
		}
	})
	if bad {
		return field, true
	}
	ct := c.Request().Header.ContentType()
	switch {
	case len(c.Request().Body()) == 0:
	case bytes.HasPrefix(ct, []byte(fiber.MIMEApplicationForm)):
		c.Request().PostArgs().VisitAll(func(k, v []byte) {
			if !bad && (hasControl(k) || hasControl(v)) {
				field, bad = fieldName(k), true
			}
		})
	case bytes.HasPrefix(ct, []byte(fiber.MIMEMultipartForm)):
		if f, err := c.MultipartForm(); err == nil {
			for k, vs := range f.Value {
				for _, v := range vs {
					if hasControl(k) || hasControl(v) {
						return fieldName([]byte(k)), true
					}
				}
			}
		}
	case bytes.Contains(ct, []byte("json")):
		return jsonControlField(c.Request().Body())
	}
	return field, bad
}

// fieldName is a field's name as a problem reports it (a name that is itself the offender is
// reported by what it is).
func fieldName(k []byte) string {
	if hasControl(k) {
		return "field name"
	}
	return string(k)
}

// jsonControlField walks a JSON document and names the first string or key that breaks the
// rule by its path (message, items[2].name). A document that is not JSON is the handler's to
// refuse.
func jsonControlField(body []byte) (string, bool) {
	type frame struct {
		obj     bool
		wantKey bool
		key     string
		idx     int
	}
	var stack []frame
	path := func() string {
		var b strings.Builder
		for _, f := range stack {
			if f.obj {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(f.key)
			} else {
				b.WriteString("[" + strconv.Itoa(f.idx) + "]")
			}
		}
		if b.Len() == 0 {
			return "body"
		}
		return b.String()
	}
	next := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].obj {
				stack[n-1].wantKey = true
			} else {
				stack[n-1].idx++
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, frame{obj: true, wantKey: true})
			case '[':
				stack = append(stack, frame{})
			default:
				stack = stack[:len(stack)-1]
				next()
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].wantKey {
				stack[n-1].key, stack[n-1].wantKey = v, false
				if hasControl(v) {
					stack[n-1].key = "field name"
					return path(), true
				}
				continue
			}
			if hasControl(v) {
				return path(), true
			}
			next()
		default:
			next()
		}
	}
}
