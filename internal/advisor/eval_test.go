package advisor

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db/dbtest"
)

// evalCase is one question of the team's evaluation set (testdata/eval.tsv): the intent and
// arguments the built-in engine should read from it and a figure its reply should contain
// for the fixture stack. Every fourth question is held out: it was written with the others
// but never used while tuning the engine.
type evalCase struct {
	Line     int
	Question string
	Intent   string
	Args     map[string]string
	Figure   string
	HeldOut  bool
}

func loadEval(t testing.TB) []evalCase {
	t.Helper()
	f, err := os.Open("testdata/eval.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []evalCase
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		if strings.HasPrefix(sc.Text(), "#") || strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		cols := strings.Split(sc.Text(), "\t")
		for len(cols) < 4 {
			cols = append(cols, "")
		}
		c := evalCase{Line: line, Question: cols[0], Intent: cols[1], Args: map[string]string{}, Figure: cols[3], HeldOut: len(out)%4 == 3}
		for _, kv := range strings.Split(cols[2], ";") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				c.Args[k] = v
			}
		}
		out = append(out, c)
	}
	return out
}

// argsOf renders parsed arguments like the evaluation file writes them.
func argsOf(a args) map[string]string {
	m := map[string]string{}
	set := func(k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	set("metal", a.Metal)
	set("range", a.Range)
	set("coin", a.Coin)
	if a.Count != 0 {
		m["count"] = strconv.FormatInt(a.Count, 10)
	}
	set("face", a.Face)
	set("target", a.Target)
	set("weight", a.Weight)
	return m
}

// judge says what is wrong with the engine's answer to c ("" when right). Arguments the file
// names must match; an argument it leaves out may be anything.
func judge(c evalCase, in intent, reply string) string {
	if in.Name != c.Intent {
		return fmt.Sprintf("intent %s, want %s", in.Name, c.Intent)
	}
	got := argsOf(in.Args)
	for k, v := range c.Args {
		if got[k] != v {
			return fmt.Sprintf("%s=%q, want %q", k, got[k], v)
		}
	}
	if c.Figure != "" && !strings.Contains(reply, c.Figure) {
		return fmt.Sprintf("reply lacks %s: %s", c.Figure, reply)
	}
	return ""
}

// TestEvaluationSet measures the built-in engine on the evaluation set and fails below 90 %
// on the held-out quarter. ACCURACY.md reports its output (go test -run TestEvaluationSet -v).
func TestEvaluationSet(t *testing.T) {
	cases := loadEval(t)
	if len(cases) < 120 {
		t.Fatalf("evaluation set has %d questions, want at least 120", len(cases))
	}
	f := newFixture(t, dbtest.SQLite(t), Config{}, true)
	var right, heldRight, held int
	perIntent := map[string][2]int{}
	for _, c := range cases {
		in := parseAll(c.Question)[0]
		r, err := f.svc.Builtin(context.Background(), f.gold, c.Question)
		if err != nil {
			t.Fatalf("line %d %q: %v", c.Line, c.Question, err)
		}
		why := judge(c, in, r.Text)
		if why == "" && len(r.Unverified) > 0 {
			why = fmt.Sprintf("figure check left out %q", r.Unverified)
		}
		pi := perIntent[c.Intent]
		pi[1]++
		if why == "" {
			right++
			pi[0]++
		} else {
			t.Logf("MISS line %d%s %q: %s", c.Line, map[bool]string{true: " (held out)", false: ""}[c.HeldOut], c.Question, why)
		}
		perIntent[c.Intent] = pi
		if c.HeldOut {
			held++
			if why == "" {
				heldRight++
			}
		}
	}
	overall := 100 * float64(right) / float64(len(cases))
	heldPct := 100 * float64(heldRight) / float64(held)
	t.Logf("overall %d/%d = %.1f%%; held-out quarter %d/%d = %.1f%%", right, len(cases), overall, heldRight, held, heldPct)
	for _, name := range []string{ToolStackValue, ToolProfitLoss, ToolBreakEven, ToolAllocation, ToolSpotPrice, ToolPriceRange, ToolRatio,
		ToolJunkMelt, ToolWhatIf, ToolPremiums, ToolStackSignal, ToolComex, IntentCapability} {
		pi := perIntent[name]
		t.Logf("  %-20s %d/%d", name, pi[0], pi[1])
	}
	if heldPct < 90 {
		t.Errorf("held-out accuracy %.1f%% is below the 90%% target", heldPct)
	}
}
