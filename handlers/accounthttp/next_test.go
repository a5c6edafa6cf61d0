package accounthttp

import (
	"testing"

	"github.com/ouncehq/ounce/handlers/kit"
)

// TestSafeNext: post-login redirects stay on this site, whatever encoding an attacker tries.
func TestSafeNext(t *testing.T) {
	for in, want := range map[string]string{
		"/":                              "/",
		"/holdings":                      "/holdings",
		"/holdings?saved=1&x=%20y":       "/holdings?saved=1&x=%20y",
		"/signal/gold-rallies":           "/signal/gold-rallies",
		"":                               "/",
		"holdings":                       "/",
		"/\r\nSet-Cookie: a=b":           "/",
		"/\rX: y":                        "/",
		"/\nX: y":                        "/",
		"/\t/evil.example":               "/",
		"/\x00":                          "/",
		"/\x7f":                          "/",
		"/ /evil.example":                "/",
		"/%0D%0ASet-Cookie:%20a=b":       "/",
		"/%0d%0aX:%20y":                  "/",
		"/%09/evil.example":              "/",
		"/%00":                           "/",
		"/%250D%250AX:%2520y":            "/",
		"/%25250D%25250AX":               "/",
		"/%2525250D":                     "/",
		"//evil.example":                 "/",
		"//evil.example/path":            "/",
		"/\\evil.example":                "/",
		"\\/evil.example":                "/",
		"/%5Cevil.example":               "/",
		"/%255Cevil.example":             "/",
		"/%2F/evil.example":              "/",
		"/%2f%2fevil.example":            "/",
		"https://evil.example":           "/",
		"https:evil.example":             "/",
		"HTTP://evil.example":            "/",
		"javascript:alert(1)":            "/",
		"/javascript:alert(1)":           "/javascript:alert(1)",
		"/\u00e9":                        "/",
		"/caf%C3%A9":                     "/caf%C3%A9",
		"/%zz":                           "/",
		"/" + string(make([]byte, 3000)): "/",
	} {
		if got := safeNext(in); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBearerToken(t *testing.T) {
	for in, want := range map[string]string{
		"Bearer abc": "abc", "bearer abc": "abc", "BEARER  abc ": "abc", "Bearer ": "", "Basic abc": "", "Bearerabc": "", "": "",
	} {
		got, ok := kit.BearerToken(in)
		if got != want || ok != (want != "") {
			t.Errorf("BearerToken(%q) = %q %v", in, got, ok)
		}
	}
}
