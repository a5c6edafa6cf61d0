// Package llm builds the one client Ounce uses for OpenAI-compatible chat-completions servers
// (OpenAI, Ollama's /v1, vLLM, LM Studio and the like): the official openai-go SDK, pointed at
// the configured base URL, without retries (a caller with a fallback writer should fall back,
// not wait), and with failures turned into short reasons that never carry the key or the
// server's text. The Stack Signal writer and the advisor share it.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Config names a server and a model (OUNCE_LLM_BASE_URL, OUNCE_LLM_MODEL, OUNCE_LLM_API_KEY).
type Config struct {
	// BaseURL is the API root, e.g. "https://api.openai.com/v1" or "http://localhost:11434/v1".
	BaseURL string
	Model   string
	// APIKey, when set, is sent as a bearer token.
	APIKey string
	// HTTPClient defaults to http.DefaultClient.
	HTTPClient *http.Client
}

// Configured reports whether both a server and a model are named.
func (c Config) Configured() bool {
	return strings.TrimSpace(c.BaseURL) != "" && strings.TrimSpace(c.Model) != ""
}

// NewClient builds the SDK client for c. Settings come only from c: an OPENAI_API_KEY in the
// environment is never sent to the configured server.
func NewClient(c Config) openai.Client {
	base := c.HTTPClient
	if base == nil {
		base = http.DefaultClient
	}
	hc := *base
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	hc.Transport = limitTransport{rt}
	return openai.NewClient(
		option.WithBaseURL(strings.TrimRight(strings.TrimSpace(c.BaseURL), "/")+"/"),
		option.WithAPIKey(c.APIKey),
		option.WithHTTPClient(&hc),
		option.WithMaxRetries(0),
	)
}

// Reason names the kind of a failed call in a few words, for logs and stored fallback
// reasons: an HTTP status, a timeout, a cancel or a transport failure.
func Reason(ctx context.Context, err error, timeout time.Duration) string {
	var apiErr *openai.Error
	switch {
	case errors.As(err, &apiErr):
		return fmt.Sprintf("llm answered HTTP %d", apiErr.StatusCode)
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("llm timed out after %s", timeout)
	case errors.Is(ctx.Err(), context.Canceled):
		return "llm request canceled"
	}
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syntax) || errors.As(err, &typ) || errors.Is(err, errTooLarge) ||
		strings.Contains(err.Error(), "parsing response json") || strings.Contains(err.Error(), "content-type") {
		return "llm response is not a chat completion"
	}
	return "llm request failed"
}

// MaxResponseBytes caps how much of one answer is read: a chat answer is a few kilobytes, and
// a broken or hostile server must not make Ounce buffer without end.
const MaxResponseBytes = 1 << 20

var errTooLarge = errors.New("llm answer too large")

// limitTransport cuts every response body at MaxResponseBytes, failing the read past it.
type limitTransport struct{ next http.RoundTripper }

func (t limitTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := t.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	res.Body = &limitedBody{rc: res.Body, left: MaxResponseBytes}
	return res, nil
}

type limitedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }
