package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// serveBinary starts the built binary's serve with env and returns its base URL; it stops when
// the test ends.
func serveBinary(t *testing.T, env ...string) string {
	t.Helper()
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, ounceBinary(t), "serve")
	cmd.Env = append(append(cleanEnv(), "OUNCE_DATA_DIR="+t.TempDir(), "OUNCE_OFFLINE=1", "OUNCE_ADDR="+addr), env...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait(); cancel() })
	base := "http://" + addr
	for deadline := time.Now().Add(60 * time.Second); ; {
		if res, err := http.Get(base + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return base
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("server never became ready")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func historySources(t *testing.T, base, metal string) (map[string]int, int) {
	t.Helper()
	res, err := http.Get(base + "/v1/prices/history?metal=" + metal + "&range=ALL&max_points=10000")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var h struct {
		Points []struct{ Date, Source string }
	}
	if err := json.NewDecoder(res.Body).Decode(&h); err != nil || res.StatusCode != 200 {
		t.Fatalf("history %s: %d %v", metal, res.StatusCode, err)
	}
	out := map[string]int{}
	for _, p := range h.Points {
		out[p.Source]++
	}
	return out, len(h.Points)
}

// TestHistoryPointsNameTheirSeries: /v1/prices/history names each point's series, and with
// OUNCE_HISTORY=open only the World Bank series is served (no palladium history at all).
func TestHistoryPointsNameTheirSeries(t *testing.T) {
	full := serveBinary(t)
	src, n := historySources(t, full, "gold")
	if n == 0 || src["LBMA Gold Price PM (embedded history)"] == 0 || src[""] != 0 {
		t.Fatalf("full history sources: %v (%d points)", src, n)
	}

	open := serveBinary(t, "OUNCE_HISTORY=open")
	for _, metal := range []string{"gold", "silver", "platinum"} {
		src, n := historySources(t, open, metal)
		wb := "World Bank Pink Sheet monthly average, CC BY 4.0 (open history)"
		if n == 0 || src[wb] != n {
			t.Errorf("open %s history: %v (%d points), want only %q", metal, src, n, wb)
		}
	}
	if src, n := historySources(t, open, "palladium"); n != 0 {
		t.Errorf("open palladium history has %d points: %v", n, src)
	}
	res, err := http.Get(open + "/markets/chart?metal=gold&range=ALL")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		k, err := res.Body.Read(buf)
		b.Write(buf[:k])
		if err != nil {
			break
		}
	}
	if !strings.Contains(b.String(), "The World Bank, Commodity Price Data (The Pink Sheet), CC BY 4.0") {
		t.Errorf("the markets chart of open history does not credit the World Bank (status %d)", res.StatusCode)
	}
}
