package pages

import (
	"bytes"
	"context"
	"hash/fnv"
	"strconv"
)

// ContentKey names rendered content: the price stream publishes each board with the key of
// its HTML, and a page that was rendered with the same board says so (?have=), so the stream
// does not swap in what the page already shows.
func ContentKey(b []byte) string {
	h := fnv.New64a()
	h.Write(b)
	return strconv.FormatUint(h.Sum64(), 36)
}

// TickerKey is the ContentKey of the price board v renders ("" if it cannot be rendered,
// which only makes the stream send the board once more).
func TickerKey(v TickerView) string {
	var buf bytes.Buffer
	if err := PriceTicker(v).Render(context.Background(), &buf); err != nil {
		return ""
	}
	return ContentKey(buf.Bytes())
}
