package advisor

import (
	"testing"
	"time"
)

// Questions about how the stack did over a period go to the performance tool with their
// period; the all-time profit question stays where it was.
func TestPerformanceQuestions(t *testing.T) {
	for q, want := range map[string]string{
		"How did my stack do this year?":              "YTD",
		"how has my portfolio performed since March":  "since:3",
		"how did my stack do in 2024":                 "in:2024",
		"what did I make since sept 2023 on my stack": "since:9:2023",
		"how is my stack doing this month":            "MTD",
	} {
		in := parse(q)
		if in.Name != ToolPerformance || in.Args.Range != want {
			t.Errorf("%q: %s %q, want %s %q", q, in.Name, in.Args.Range, ToolPerformance, want)
		}
	}
	for _, q := range []string{"how is my stack doing", "what was silver's low this year", "gold ytd"} {
		if in := parse(q); in.Name == ToolPerformance {
			t.Errorf("%q went to the performance tool", q)
		}
	}
	now := time.Date(2026, 2, 10, 12, 0, 0, 0, time.UTC)
	if q, words, ok := perfQuery("since:10", now); !ok || q.From != "2025-10-01" || words != "since October 2025" {
		t.Errorf("since October in February: %+v %q", q, words)
	}
	if q, _, ok := perfQuery("in:2024", now); !ok || q.From != "2024-01-01" || q.To != "2024-12-31" {
		t.Errorf("in 2024: %+v", q)
	}
}
