package news

import (
	"strings"
	"testing"
	"time"
)

func TestParseCategory(t *testing.T) {
	tests := []struct {
		in      string
		want    Category
		wantErr bool
	}{
		{"BREAKING", Breaking, false},
		{"breaking", Breaking, false},
		{"  Supply_Demand ", SupplyDemand, false},
		{"supply-demand", SupplyDemand, false},
		{"central bank", CentralBank, false},
		{"policy", Policy, false},
		{"MINING", Mining, false},
		{"investment", Investment, false},
		{"Geopolitical", Geopolitical, false},
		{"analysis", Analysis, false},
		{"", "", true},
		{"news", "", true},
		{"BREAKING_", "", true},
	}
	for _, tt := range tests {
		got, err := ParseCategory(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseCategory(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
	if _, err := ParseCategory("nope"); err == nil || !strings.Contains(err.Error(), "SUPPLY_DEMAND") {
		t.Errorf("error should list the valid categories: %v", err)
	}
}

func TestCategories(t *testing.T) {
	want := "BREAKING SUPPLY_DEMAND CENTRAL_BANK POLICY MINING INVESTMENT GEOPOLITICAL ANALYSIS"
	var got []string
	for _, c := range Categories {
		got = append(got, string(c))
		if !c.Valid() || c.Label() == "" || c.Label() == string(c) {
			t.Errorf("category %s: valid %v, label %q", c, c.Valid(), c.Label())
		}
	}
	if strings.Join(got, " ") != want {
		t.Errorf("Categories = %v, want %s", got, want)
	}
	if Category("breaking").Valid() || Category("").Valid() {
		t.Error("Valid accepts non-canonical spellings")
	}
}

func TestFeedStateHealthy(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		st   FeedState
		want bool
	}{
		{"never fetched", FeedState{}, false},
		{"last attempt ok", FeedState{LastOK: t0, LastAttempt: t0}, true},
		{"failed since", FeedState{LastOK: t0, LastAttempt: t0.Add(time.Minute), LastError: "HTTP 500"}, false},
		{"error without later attempt", FeedState{LastOK: t0, LastAttempt: t0, LastError: "x"}, false},
	}
	for _, tt := range tests {
		if got := tt.st.Healthy(); got != tt.want {
			t.Errorf("%s: Healthy = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func FuzzParseCategory(f *testing.F) {
	for _, c := range Categories {
		f.Add(string(c))
	}
	f.Add("supply demand")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCategory(s)
		if err != nil {
			return
		}
		if !c.Valid() {
			t.Fatalf("ParseCategory(%q) = invalid %q", s, c)
		}
		if again, err := ParseCategory(string(c)); err != nil || again != c {
			t.Fatalf("round trip of %q failed", c)
		}
	})
}
