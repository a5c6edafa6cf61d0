package web_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestInstallableManifest: the manifest is served with its media type and names icons that
// exist as PNGs (192, 512 and a maskable 512); every page links it with a theme colour and an
// Apple touch icon and loads the worker's registration script; the one service worker at
// /sw.js both shows pushes and keeps the offline page, which is served too.
func TestInstallableManifest(t *testing.T) {
	e := newEnv(t, sqliteStore(t), nil)
	b := e.browser()
	r := b.get("/manifest.webmanifest")
	if r.Status != 200 || r.Header.Get("Content-Type") != "application/manifest+json" {
		t.Fatalf("manifest: %d %q", r.Status, r.Header.Get("Content-Type"))
	}
	var m struct {
		Name       string
		StartURL   string `json:"start_url"`
		Display    string
		ThemeColor string `json:"theme_color"`
		Icons      []struct{ Src, Sizes, Type, Purpose string }
	}
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ic := range m.Icons {
		got = append(got, ic.Sizes+" "+ic.Purpose)
		img := b.get(ic.Src)
		if img.Status != 200 || img.Header.Get("Content-Type") != "image/png" || !strings.HasPrefix(string(img.Body), "\x89PNG") {
			t.Errorf("icon %s: %d %q", ic.Src, img.Status, img.Header.Get("Content-Type"))
		}
	}
	if m.Name != "Ounce" || m.StartURL != "/" || m.Display != "standalone" || m.ThemeColor == "" {
		t.Errorf("manifest %+v", m)
	}
	if strings.Join(got, ",") != "192x192 any,512x512 any,512x512 maskable" {
		t.Errorf("icons %v", got)
	}
	for _, path := range []string{"/markets", "/login", "/signal"} {
		page := string(b.get(path).Body)
		for _, want := range []string{`<link rel="manifest" href="/manifest.webmanifest">`, `<meta name="theme-color" content="` + m.ThemeColor + `">`,
			`<link rel="apple-touch-icon" href="/static/img/apple-touch-icon.png">`, `src="/static/js/pwa.js"`, `<details class="group relative sm:hidden" id="phone-menu">`, `href="/legal"`} {
			if !strings.Contains(page, want) {
				t.Errorf("%s lacks %s", path, want)
			}
		}
	}
	sw := b.get("/sw.js")
	if sw.Status != 200 || !strings.HasPrefix(sw.Header.Get("Content-Type"), "text/javascript") {
		t.Fatalf("/sw.js: %d %q", sw.Status, sw.Header.Get("Content-Type"))
	}
	for _, want := range []string{"showNotification", `"/static/offline.html"`, "Offline — showing your dashboard as of"} {
		if !strings.Contains(string(sw.Body), want) {
			t.Errorf("/sw.js lacks %s", want)
		}
	}
	if off := b.get("/static/offline.html"); off.Status != 200 || !strings.Contains(string(off.Body), "You are offline") {
		t.Errorf("offline page: %d", off.Status)
	}
}
