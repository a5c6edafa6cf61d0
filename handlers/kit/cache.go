package kit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
)

// BodyCache keeps an encoded response and its ETag until its key changes, so hot read-only
// endpoints cost a comparison rather than an encoding.
type BodyCache struct {
	mu      sync.Mutex
	entries map[string]cachedBody
}

type cachedBody struct {
	key  string
	body []byte
	etag string
}

func (bc *BodyCache) Get(slot, key string, build func() (any, error)) ([]byte, string, error) {
	bc.mu.Lock()
	e, ok := bc.entries[slot]
	bc.mu.Unlock()
	if ok && e.key == key {
		return e.body, e.etag, nil
	}
	v, err := build()
	if err != nil {
		return nil, "", err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(b)
	e = cachedBody{key: key, body: b, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
	bc.mu.Lock()
	if bc.entries == nil {
		bc.entries = map[string]cachedBody{}
	}
	bc.entries[slot] = e
	bc.mu.Unlock()
	return e.body, e.etag, nil
}

// SendCached writes a cached JSON body with validators, answering 304 when the client has it.
func SendCached(c *fiber.Ctx, body []byte, etag string, maxAge time.Duration) error {
	rh := &c.Response().Header
	rh.SetCanonical(hdrETag, []byte(etag))
	rh.SetCanonical(hdrCacheControl, []byte(cacheControl(maxAge)))
	if c.Get(fiber.HeaderIfNoneMatch) == etag {
		return c.SendStatus(http.StatusNotModified)
	}
	rh.SetContentTypeBytes(mimeJSON)
	return c.Send(body)
}

var (
	hdrETag         = []byte(fiber.HeaderETag)
	hdrCacheControl = []byte(fiber.HeaderCacheControl)
	mimeJSON        = []byte(fiber.MIMEApplicationJSONCharsetUTF8)
)

var cacheControls sync.Map // time.Duration → header value

func cacheControl(maxAge time.Duration) string {
	if v, ok := cacheControls.Load(maxAge); ok {
		return v.(string)
	}
	v := "public, max-age=" + strconv.Itoa(int(maxAge.Seconds()))
	cacheControls.Store(maxAge, v)
	return v
}
