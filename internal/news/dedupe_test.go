package news

import (
	"net/url"
	"strings"
	"testing"
)

func TestCanonicalURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://example.com/a", "https://example.com/a"},
		{"http://example.com/a", "https://example.com/a"},
		{"  HTTP://WWW.Example.COM/Path/Case/  ", "https://www.example.com/Path/Case"},
		{"https://example.com:443/a", "https://example.com/a"},
		{"http://example.com:80/a", "https://example.com/a"},
		{"https://example.com:8443/a", "https://example.com:8443/a"},
		{"https://example.com/a/#section-2", "https://example.com/a"},
		{"https://example.com/", "https://example.com"},
		{"https://example.com", "https://example.com"},
		{"https://example.com./a", "https://example.com/a"},
		{"https://user:pw@example.com/a", "https://example.com/a"},
		{"https://example.com/a?utm_source=x&utm_medium=y&UTM_Campaign=z", "https://example.com/a"},
		{"https://example.com/a?fbclid=1&gclid=2&id=7", "https://example.com/a?id=7"},
		{"https://example.com/a?b=2&a=1", "https://example.com/a?a=1&b=2"},
		{"https://example.com/a?q=gold%20price&&", "https://example.com/a?q=gold%20price"},
		{"https://example.com/caf%C3%A9/", "https://example.com/caf%C3%A9"},
		{"https://[2001:DB8::1]:443/x", "https://[2001:db8::1]/x"},
		{"ftp://example.com/a", "ftp://example.com/a"},
		{"mailto:desk@example.com", "mailto:desk@example.com"},
		{"/relative/path", "/relative/path"},
		{"", ""},
		{"https://ounce.invalid/demo/x", "https://ounce.invalid/demo/x"},
	}
	for _, tt := range tests {
		if got := CanonicalURL(tt.in); got != tt.want {
			t.Errorf("CanonicalURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTitleSimilarity(t *testing.T) {
	tests := []struct {
		a, b     string
		min, max float64
	}{
		{"Gold hits record high as dollar slips", "Gold hits record high as dollar slips", 1, 1},
		{"Gold hits record high as dollar slips", "GOLD HITS RECORD HIGH, AS DOLLAR SLIPS!", 1, 1},
		{"Gold hits record high as dollar slips", "Gold hits record high as dollar slips - Metals Wire", 1, 1},
		{"Central bank adds gold for a sixth straight month", "Central bank adds gold for a sixth straight month, data show", 0.8, 0.99},
		{"Gold hits record high as dollar slips", "Silver hits record high as dollar slips", 0.6, 0.8},
		{"Gold hits record high as dollar slips", "Platinum miners strike over pay", 0, 0},
		{"", "anything", 0, 0},
	}
	for _, tt := range tests {
		got := TitleSimilarity(tt.a, tt.b)
		if got < tt.min || got > tt.max {
			t.Errorf("TitleSimilarity(%q, %q) = %.3f, want in [%.2f, %.2f]", tt.a, tt.b, got, tt.min, tt.max)
		}
	}
}

func TestDedupe(t *testing.T) {
	existing := []Item{
		{Title: "Gold hits record high as dollar slips", URL: "https://wire.example.com/gold-record"},
		{Title: "Silver deficit set to widen, survey says", URL: "https://wire.example.com/silver-deficit"},
	}
	tests := []struct {
		name     string
		incoming []Item
		want     []string // URLs kept, canonical
	}{
		{
			name: "same URL after canonicalisation is dropped",
			incoming: []Item{
				{Title: "A different title entirely", URL: "http://WIRE.example.com/gold-record/?utm_source=rss#x"},
			},
			want: nil,
		},
		{
			name: "near-identical title from another publisher is dropped",
			incoming: []Item{
				{Title: "Gold hits record high as dollar slips - Other Desk", URL: "https://other.example.org/story/1"},
				{Title: "Silver deficit set to widen, survey says", URL: "https://third.example.net/s"},
			},
			want: nil,
		},
		{
			name: "new stories are kept with canonical URLs",
			incoming: []Item{
				{Title: "Platinum miners strike over pay", URL: "http://news.example.com/pt-strike/?fbclid=9"},
				{Title: "Silver hits record high as dollar slips", URL: "https://wire.example.com/silver-record"},
			},
			want: []string{"https://news.example.com/pt-strike", "https://wire.example.com/silver-record"},
		},
		{
			name: "duplicates within the incoming batch keep the first",
			incoming: []Item{
				{Title: "Mint pauses orders of silver coins", URL: "https://a.example.com/1"},
				{Title: "Mint pauses orders of silver coins", URL: "https://b.example.com/2"},
				{Title: "Totally new headline about palladium", URL: "https://a.example.com/1?utm_medium=x"},
			},
			want: []string{"https://a.example.com/1"},
		},
		{
			name: "items without URL are compared by title",
			incoming: []Item{
				{Title: "Untitled wire note about gold demand"},
				{Title: "Untitled wire note about gold demand"},
			},
			want: []string{""},
		},
		{name: "nothing incoming", incoming: nil, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Dedupe(existing, tt.incoming)
			var urls []string
			for _, it := range got {
				urls = append(urls, it.URL)
			}
			if strings.Join(urls, "|") != strings.Join(tt.want, "|") || len(urls) != len(tt.want) {
				t.Errorf("kept %q, want %q", urls, tt.want)
			}
		})
	}
}

func FuzzCanonicalURL(f *testing.F) {
	for _, s := range []string{
		"https://example.com/a?utm_source=x&b=2&a=1#f", "HTTP://EXAMPLE.COM:80/", "https://[::1]:443/",
		"https://example.com/%zz", "http://a.b/c%2Fd/", "https://example.com/a;b?c=%", "//example.com/x", "",
		"https://example.com/?&&=", "https://ex%41mple.com/", "http://x.com/a b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := CanonicalURL(s)
		if again := CanonicalURL(c); again != c {
			t.Fatalf("not stable: %q -> %q -> %q", s, c, again)
		}
		if strings.Contains(c, "#") && c != strings.TrimSpace(s) {
			t.Fatalf("fragment kept: %q -> %q", s, c)
		}
		if !strings.HasPrefix(c, "https://") {
			return
		}
		u, err := url.Parse(c)
		if err != nil {
			if c == strings.TrimSpace(s) {
				return // returned unchanged: CanonicalURL could not make it stable
			}
			t.Fatalf("canonical form does not parse: %q -> %q: %v", s, c, err)
		}
		for k := range u.Query() {
			if strings.HasPrefix(strings.ToLower(k), "utm_") && c != strings.TrimSpace(s) {
				t.Fatalf("tracking parameter kept: %q -> %q", s, c)
			}
		}
	})
}
