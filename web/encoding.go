package web

import (
	"bytes"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/handlers/kit"
)

// No route takes a compressed request body. Fiber's c.Body() (and so every JSON parse) and
// fasthttp's multipart reader inflate a body by its Content-Encoding with no limit, while a
// route's MaxBody counts only the bytes on the wire: a few kilobytes of nested gzip become
// gigabytes. So a request naming any Content-Encoding but "identity" is refused (415) before
// routing, and no body is ever inflated.
func refuseContentEncoding(c *fiber.Ctx) error {
	var coded []byte
	c.Request().Header.VisitAll(func(k, v []byte) {
		if coded == nil && bytes.EqualFold(k, []byte(fiber.HeaderContentEncoding)) && !identityOnly(v) {
			coded = v
		}
	})
	if coded == nil {
		return c.Next()
	}
	return kit.NewProblem(http.StatusUnsupportedMediaType, kit.ProbUnsupported,
		"Content-Encoding: request bodies are not accepted compressed; send the body uncompressed, without a Content-Encoding header",
		kit.FieldError{Field: "Content-Encoding", Message: "must be absent (or identity)"})
}

// identityOnly reports whether a Content-Encoding value names no coding but "identity".
func identityOnly(v []byte) bool {
	for _, part := range bytes.Split(v, []byte(",")) {
		if p := bytes.TrimSpace(part); len(p) > 0 && !bytes.EqualFold(p, []byte("identity")) {
			return false
		}
	}
	return true
}
