package intel

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

var slugRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}-[a-z0-9]+(-[a-z0-9]+)*$`)

func TestSlugify(t *testing.T) {
	plus5 := time.FixedZone("UTC+5", 5*3600)
	tests := []struct {
		name  string
		title string
		date  time.Time
		want  string
	}{
		{"plain", "Gold Hits Record High", fixtureNow, "2026-11-22-gold-hits-record-high"},
		{"punctuation collapses", "Fed: rates 'on hold' — again!!", fixtureNow, "2026-11-22-fed-rates-on-hold-again"},
		{"numbers kept", "Silver at $31.20, +1.40%", fixtureNow, "2026-11-22-silver-at-31-20-1-40"},
		{"accents folded", "Zürich refiner: Ærø déjà vu, Łódź straße", fixtureNow, "2026-11-22-zurich-refiner-aero-deja-vu-lodz-strasse"},
		{"other scripts dropped", "金价 record 創新高", fixtureNow, "2026-11-22-record"},
		{"empty title", "", fixtureNow, "2026-11-22-article"},
		{"symbols only", "—!! ??", fixtureNow, "2026-11-22-article"},
		{"date taken in UTC", "Late news", time.Date(2026, 11, 23, 1, 0, 0, 0, plus5), "2026-11-22-late-news"},
		{"long title cut at a word", strings.Repeat("central bank buying ", 6), fixtureNow,
			"2026-11-22-central-bank-buying-central-bank-buying-central-bank-buying-central"},
		{"one huge word cut hard", strings.Repeat("x", 100), fixtureNow, "2026-11-22-" + strings.Repeat("x", 69)},
		{"far future year clamped", "Gold", time.Date(12026, 1, 2, 0, 0, 0, 0, time.UTC), "9999-01-02-gold"},
		{"zero date still well formed", "Gold", time.Time{}, "0001-01-01-gold"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Slugify(tt.title, tt.date)
			if got != tt.want {
				t.Errorf("Slugify(%q) = %q, want %q", tt.title, got, tt.want)
			}
			if len(got) > MaxSlugLen || !slugRe.MatchString(got) {
				t.Errorf("Slugify(%q) = %q: not a well-formed slug", tt.title, got)
			}
		})
	}
}

func FuzzSlugify(f *testing.F) {
	for _, s := range []string{"Gold Hits Record High", "", "—", "Zürich ß", strings.Repeat("ab ", 60), "a-b--c", "\xff\xfe"} {
		f.Add(s, int64(1795000000))
	}
	f.Add("x", int64(-99999999999))
	f.Add("y", int64(999999999999))
	f.Fuzz(func(t *testing.T, title string, unix int64) {
		date := time.Unix(unix, 0)
		got := Slugify(title, date)
		if len(got) > MaxSlugLen {
			t.Fatalf("slug %q longer than %d", got, MaxSlugLen)
		}
		if !slugRe.MatchString(got) {
			t.Fatalf("Slugify(%q) = %q is malformed", title, got)
		}
		if again := Slugify(title, date); again != got {
			t.Fatalf("unstable: %q then %q", got, again)
		}
		// A slug's own words slugify to themselves: the cleaning is idempotent.
		if body := got[11:]; body != "article" && Slugify(body, date) != got {
			t.Fatalf("not idempotent: %q -> %q", got, Slugify(body, date))
		}
	})
}
