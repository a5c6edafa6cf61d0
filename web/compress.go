package web

import (
	"bytes"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// compressText compresses text responses (HTML, CSS, JavaScript, JSON, SVG, the manifest) with
// brotli or gzip, whichever the browser accepts (brotli first). fasthttp leaves alone bodies
// that are already encoded, content types that are not text (PNG, JPEG, PDF) and bodies under
// 200 bytes, and adds Vary: Accept-Encoding. Event streams are never compressed: a compressor
// would hold back each event until its buffer filled.
func compressText() fiber.Handler {
	compress := fasthttp.CompressHandlerBrotliLevel(func(*fasthttp.RequestCtx) {},
		fasthttp.CompressBrotliDefaultCompression, fasthttp.CompressDefaultCompression)
	return func(c *fiber.Ctx) error {
		if err := c.Next(); err != nil {
			return err
		}
		if bytes.HasPrefix(c.Response().Header.ContentType(), []byte("text/event-stream")) {
			return nil
		}
		compress(c.Context())
		return nil
	}
}
