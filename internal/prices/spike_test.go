package prices

import (
	"sync"
	"testing"

	"github.com/ouncehq/ounce/internal/metals"
)

func TestSpikeGuard(t *testing.T) {
	type tick struct {
		m     metals.Metal
		price string
		want  Verdict
	}
	g, s := metals.Gold, metals.Silver
	tests := []struct {
		name      string
		threshold string
		prime     string // gold, "" = none
		ticks     []tick
	}{
		{name: "first tick is accepted", ticks: []tick{{g, "4000", Accepted}}},
		{name: "small moves pass", ticks: []tick{{g, "4000", Accepted}, {g, "4200", Accepted}, {g, "4410", Accepted}}},
		{name: "exactly the threshold passes", ticks: []tick{{g, "4000", Accepted}, {g, "4320", Accepted}}},
		{name: "jump held then confirmed", ticks: []tick{{g, "4000", Accepted}, {g, "4400", Held}, {g, "4410", Confirmed}, {g, "4420", Accepted}}},
		{name: "drop held then confirmed", ticks: []tick{{g, "4000", Accepted}, {g, "3600", Held}, {g, "3590", Confirmed}}},
		{name: "glitch dropped when price returns", ticks: []tick{{g, "4000", Accepted}, {g, "40000", Held}, {g, "4001", Accepted}, {g, "4400", Held}}},
		{name: "held tick not confirmed by a different jump", ticks: []tick{{g, "4000", Accepted}, {g, "4800", Held}, {g, "5600", Held}, {g, "5650", Confirmed}}},
		{name: "confirmation must also be far from the old price", ticks: []tick{{g, "4000", Accepted}, {g, "4330", Held}, {g, "4100", Accepted}}},
		{name: "metals are independent", ticks: []tick{{g, "4000", Accepted}, {s, "58", Accepted}, {g, "4800", Held}, {s, "58.5", Accepted}, {s, "70", Held}, {g, "4810", Confirmed}, {s, "58.6", Accepted}}},
		{name: "primed price is the reference", prime: "4000", ticks: []tick{{g, "4500", Held}, {g, "4510", Confirmed}}},
		{name: "custom threshold", threshold: "2", ticks: []tick{{g, "4000", Accepted}, {g, "4090", Held}, {g, "4091", Confirmed}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var guard SpikeGuard
			if tt.threshold != "" {
				guard.Threshold = dec(tt.threshold)
			}
			if tt.prime != "" {
				guard.Prime(g, dec(tt.prime))
			}
			for i, tk := range tt.ticks {
				if got := guard.Check(tk.m, dec(tk.price)); got != tk.want {
					t.Fatalf("tick %d (%s %s) = %s, want %s", i, tk.m, tk.price, got, tk.want)
				}
			}
		})
	}
}

func TestVerdict(t *testing.T) {
	for v, want := range map[Verdict]bool{Accepted: true, Held: false, Confirmed: true} {
		if v.Publish() != want {
			t.Errorf("%s.Publish() = %t", v, !want)
		}
	}
	if Verdict(42).String() != "unknown" || Held.String() != "held" {
		t.Error("Verdict names")
	}
}

func TestSpikeGuardConcurrent(t *testing.T) {
	var guard SpikeGuard
	var wg sync.WaitGroup
	for _, m := range metals.All {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				guard.Check(m, dec("1000").Add(dec("1").Mul(dec(string(rune('0'+i%10))))))
			}
		}()
	}
	wg.Wait()
	for _, m := range metals.All {
		if v := guard.Check(m, dec("1005")); v != Accepted {
			t.Errorf("%s: %s", m, v)
		}
	}
}
