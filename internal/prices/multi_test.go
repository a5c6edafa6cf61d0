package prices

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/internal/metals"
)

// fakeProvider answers with fixed prices after an optional delay.
type fakeProvider struct {
	name   string
	prices map[metals.Metal]string
	err    error
	delay  time.Duration
	asOf   time.Time
}

func (p *fakeProvider) Name() string { return p.name }

func (p *fakeProvider) Latest(ctx context.Context) (map[metals.Metal]Quote, error) {
	if p.delay > 0 {
		select {
		case <-time.After(p.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	var out map[metals.Metal]Quote
	for m, s := range p.prices {
		if out == nil {
			out = map[metals.Metal]Quote{}
		}
		asOf := p.asOf
		if asOf.IsZero() {
			asOf = time.Date(2026, 7, 3, 16, 0, 0, 0, time.UTC)
		}
		out[m] = Quote{Metal: m, Price: dec(s), AsOf: asOf, Source: p.name}
	}
	return out, p.err
}

var (
	errA = errors.New("provider a is down")
	errB = errors.New("provider b is down")
)

func TestMultiLatest(t *testing.T) {
	type want struct {
		price   string
		source  string
		sources []string
		spread  string
	}
	tests := []struct {
		name      string
		providers []Provider
		timeout   time.Duration
		want      map[metals.Metal]want
		wantErrs  []error // nil = success
	}{
		{
			name: "odd count takes the middle",
			providers: []Provider{
				&fakeProvider{name: "a", prices: map[metals.Metal]string{metals.Gold: "4170.00"}},
				&fakeProvider{name: "b", prices: map[metals.Metal]string{metals.Gold: "4165.20"}},
				&fakeProvider{name: "c", prices: map[metals.Metal]string{metals.Gold: "4160.00"}},
			},
			// spread = 10 / 4165.20 × 100 = 0.2400…
			want: map[metals.Metal]want{metals.Gold: {"4165.20", "a+b+c", []string{"a", "b", "c"}, "0.24"}},
		},
		{
			name: "even count averages the middle two, at source precision",
			providers: []Provider{
				&fakeProvider{name: "a", prices: map[metals.Metal]string{metals.Gold: "4165.20"}},
				&fakeProvider{name: "b", prices: map[metals.Metal]string{metals.Gold: "4170.01"}},
			},
			// (4165.20 + 4170.01) / 2 = 4167.605, kept (no rounding to cents before the
			// arithmetic); spread 4.81 / 4167.605 × 100 = 0.1154…
			want: map[metals.Metal]want{metals.Gold: {"4167.605", "a+b", []string{"a", "b"}, "0.12"}},
		},
		{
			name: "four answers ignore one outlier",
			providers: []Provider{
				&fakeProvider{name: "a", prices: map[metals.Metal]string{metals.Silver: "58.40"}},
				&fakeProvider{name: "b", prices: map[metals.Metal]string{metals.Silver: "58.42"}},
				&fakeProvider{name: "c", prices: map[metals.Metal]string{metals.Silver: "64.00"}},
				&fakeProvider{name: "d", prices: map[metals.Metal]string{metals.Silver: "58.44"}},
			},
			// middle two 58.42, 58.44 → 58.43; spread 5.60 / 58.43 × 100 = 9.584…
			want: map[metals.Metal]want{metals.Silver: {"58.43", "a+b+c+d", []string{"a", "b", "c", "d"}, "9.58"}},
		},
		{
			name: "single answer per metal keeps its source",
			providers: []Provider{
				&fakeProvider{name: "a", prices: map[metals.Metal]string{metals.Gold: "4165.20"}},
				&fakeProvider{name: "b", prices: map[metals.Metal]string{metals.Platinum: "1987.50"}},
			},
			want: map[metals.Metal]want{
				metals.Gold:     {"4165.20", "a", []string{"a"}, "0"},
				metals.Platinum: {"1987.50", "b", []string{"b"}, "0"},
			},
		},
		{
			name: "a failing provider is outvoted silently",
			providers: []Provider{
				&fakeProvider{name: "a", err: errA},
				&fakeProvider{name: "b", prices: map[metals.Metal]string{metals.Gold: "4165.20"}},
			},
			want: map[metals.Metal]want{metals.Gold: {"4165.20", "b", []string{"b"}, "0"}},
		},
		{
			name: "partial answers with an error are used",
			providers: []Provider{
				&fakeProvider{name: "a", err: errA, prices: map[metals.Metal]string{metals.Silver: "58.41"}},
			},
			want: map[metals.Metal]want{metals.Silver: {"58.41", "a", []string{"a"}, "0"}},
		},
		{
			name: "implausible quotes are dropped",
			providers: []Provider{
				&fakeProvider{name: "a", prices: map[metals.Metal]string{metals.Gold: "133.91", metals.Silver: "0.5"}},
				&fakeProvider{name: "b", prices: map[metals.Metal]string{metals.Silver: "58.41"}},
			},
			want: map[metals.Metal]want{
				metals.Gold:   {"133.91", "a", []string{"a"}, "0"},
				metals.Silver: {"58.41", "b", []string{"b"}, "0"},
			},
		},
		{
			name: "source order follows configuration, not arrival",
			providers: []Provider{
				&fakeProvider{name: "slow", delay: 50 * time.Millisecond, prices: map[metals.Metal]string{metals.Gold: "4160.00"}},
				&fakeProvider{name: "fast", prices: map[metals.Metal]string{metals.Gold: "4170.00"}},
			},
			want: map[metals.Metal]want{metals.Gold: {"4165.00", "slow+fast", []string{"slow", "fast"}, "0.24"}},
		},
		{
			name: "a hung provider does not hold up the answer",
			providers: []Provider{
				&fakeProvider{name: "hung", delay: time.Hour, prices: map[metals.Metal]string{metals.Gold: "4000.00"}},
				&fakeProvider{name: "fast", prices: map[metals.Metal]string{metals.Gold: "4170.00"}},
			},
			timeout: 100 * time.Millisecond,
			want:    map[metals.Metal]want{metals.Gold: {"4170.00", "fast", []string{"fast"}, "0"}},
		},
		{
			name: "nobody answers",
			providers: []Provider{
				&fakeProvider{name: "a", err: errA},
				&fakeProvider{name: "b", err: errB},
			},
			wantErrs: []error{errA, errB},
		},
		{
			name: "everybody too slow",
			providers: []Provider{
				&fakeProvider{name: "a", delay: time.Hour},
			},
			timeout:  50 * time.Millisecond,
			wantErrs: []error{context.DeadlineExceeded},
		},
		{name: "no providers", wantErrs: []error{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			got, err := NewMulti(tt.providers...).Latest(ctx)
			if tt.wantErrs != nil {
				if err == nil {
					t.Fatalf("no error; got %v", got)
				}
				for _, w := range tt.wantErrs {
					if !errors.Is(err, w) {
						t.Errorf("error %q does not wrap %v", err, w)
					}
				}
				for _, p := range tt.providers {
					if !strings.Contains(err.Error(), p.Name()+":") {
						t.Errorf("error %q does not name provider %s", err, p.Name())
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Errorf("got metals %v, want %v", got, tt.want)
			}
			for m, w := range tt.want {
				a, ok := got[m]
				if !ok {
					t.Errorf("%s missing", m)
					continue
				}
				if !a.Price.Equal(dec(w.price)) || a.Source != w.source || !slices.Equal(a.Sources, w.sources) || !a.SpreadPct.Equal(dec(w.spread)) || a.Metal != m {
					t.Errorf("%s = %s %q %v spread %s, want %s %q %v spread %s", m, a.Price, a.Source, a.Sources, a.SpreadPct, w.price, w.source, w.sources, w.spread)
				}
			}
		})
	}
}

func TestMultiAsOfIsNewest(t *testing.T) {
	older := time.Date(2026, 7, 3, 15, 0, 0, 0, time.UTC)
	newer := older.Add(time.Minute)
	m := NewMulti(
		&fakeProvider{name: "a", asOf: newer, prices: map[metals.Metal]string{metals.Gold: "4165.20"}},
		&fakeProvider{name: "b", asOf: older, prices: map[metals.Metal]string{metals.Gold: "4165.30"}},
	)
	got, err := m.Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !got[metals.Gold].AsOf.Equal(newer) {
		t.Errorf("AsOf = %v, want %v", got[metals.Gold].AsOf, newer)
	}
}

func TestAggregateMatchesSortedMedian(t *testing.T) {
	// Property check over many permutations: order of answers never changes the price.
	base := []string{"4160.00", "4161.50", "4165.25", "4170.00", "4175.75"}
	want := map[int]string{1: "4160.00", 2: "4160.75", 3: "4161.50", 4: "4163.375", 5: "4165.25"}
	for n := 1; n <= len(base); n++ {
		vals := slices.Clone(base[:n])
		for rot := 0; rot < n; rot++ {
			qs := make([]Quote, n)
			for i := range vals {
				qs[i] = Quote{Metal: metals.Gold, Price: dec(vals[(i+rot)%n]), Source: "p"}
			}
			if got := aggregate(metals.Gold, qs).Price; !got.Equal(dec(want[n])) {
				t.Errorf("n=%d rot=%d: median %s, want %s", n, rot, got, want[n])
			}
		}
	}
}
