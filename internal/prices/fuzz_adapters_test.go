package prices

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ouncehq/ounce/internal/metals"
)

func jsonNumber(s string) json.Number { return json.Number(s) }

// addFixtures seeds a fuzzer with every fixture in a testdata folder.
func addFixtures(f *testing.F, dir string, add func(body []byte)) {
	f.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no fixtures in %s: %v", dir, err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		add(b)
	}
}

var fuzzNow = time.Date(2026, 7, 3, 16, 0, 0, 0, time.UTC)

// checkQuote is what every accepted quote must satisfy, whatever the input.
func checkQuote(t *testing.T, m metals.Metal, q Quote) {
	t.Helper()
	if q.Metal != m {
		t.Fatalf("quote for %s labelled %s", m, q.Metal)
	}
	if err := CheckPrice(m, q.Price); err != nil {
		t.Fatalf("accepted implausible price: %v", err)
	}
	if !q.Price.Equal(metals.Price(q.Price)) {
		t.Fatalf("price %s has more than %d places", q.Price, metals.PricePlaces)
	}
	if q.AsOf.IsZero() {
		t.Fatal("zero AsOf")
	}
}

func FuzzDecodeGoldAPICom(f *testing.F) {
	addFixtures(f, "gold-api", func(b []byte) { f.Add(200, b) })
	f.Add(404, []byte(`{"error":"x"}`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		q, err := decodeGoldAPICom(metals.Gold, status, body, fuzzNow)
		if err == nil {
			checkQuote(t, metals.Gold, q)
		}
	})
}

func FuzzDecodeGoldAPIIO(f *testing.F) {
	addFixtures(f, "goldapi", func(b []byte) { f.Add(200, b) })
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		q, err := decodeGoldAPIIO(metals.Silver, status, body, fuzzNow)
		if err == nil {
			checkQuote(t, metals.Silver, q)
		}
	})
}

func FuzzDecodeMetalsDevLatest(f *testing.F) {
	addFixtures(f, "metals-dev", func(b []byte) { f.Add(200, b) })
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		qs, err := decodeMetalsDevLatest(status, body, fuzzNow)
		if err != nil {
			if qs != nil {
				t.Fatal("quotes returned with an error")
			}
			return
		}
		if len(qs) == 0 {
			t.Fatal("success without quotes")
		}
		for m, q := range qs {
			checkQuote(t, m, q)
		}
	})
}

func FuzzDecodeMetalsDevSeries(f *testing.F) {
	addFixtures(f, "metals-dev", func(b []byte) { f.Add(200, b) })
	start, end := time.Date(2026, 6, 29, 0, 0, 0, 0, time.UTC), time.Date(2026, 7, 3, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		cs, err := decodeMetalsDevSeries(metals.Platinum, status, body, start, end)
		if err != nil {
			return
		}
		for _, c := range cs {
			if c.Date.Before(start) || c.Date.After(end) || c.Date.Hour() != 0 {
				t.Fatalf("close dated %v outside %v..%v", c.Date, start, end)
			}
			if err := CheckPrice(metals.Platinum, c.Price); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func FuzzDecodeMetalpriceLatest(f *testing.F) {
	addFixtures(f, "metalpriceapi", func(b []byte) { f.Add(200, b) })
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		qs, err := decodeMetalpriceLatest(status, body, fuzzNow)
		if err != nil {
			return
		}
		for m, q := range qs {
			checkQuote(t, m, q)
		}
	})
}

func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"4165.2", "2.4e-4", "-1", "1e30", "0.000000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseNumber(json.Number(s))
		if err != nil {
			return
		}
		// Whatever was accepted must be valid JSON number text.
		var v any
		if json.Unmarshal([]byte(s), &v) != nil {
			t.Fatalf("accepted %q, which is not a JSON number", s)
		}
		_ = d.String()
	})
}
