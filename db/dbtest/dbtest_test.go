package dbtest_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
)

// TestEachChild is run by TestEachSaysWhichEngineDidNotRun in a child process with the
// environment it chooses; on its own it only runs Each.
func TestEachChild(t *testing.T) {
	if os.Getenv("DBTEST_CHILD") != "1" {
		t.Skip("run by TestEachSaysWhichEngineDidNotRun")
	}
	dbtest.Each(t, func(t *testing.T, s *db.Store) { t.Logf("ran on %s", s.Engine) })
}

// TestEachSaysWhichEngineDidNotRun runs Each without a PostgreSQL URL: the postgres subtest
// must show as a SKIP with its reason, and under CI=true it must fail.
func TestEachSaysWhichEngineDidNotRun(t *testing.T) {
	run := func(ci string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestEachChild$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "DBTEST_CHILD=1", "OUNCE_TEST_POSTGRES_URL=", "CI="+ci)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("")
	if err != nil {
		t.Fatalf("without CI the run must pass: %v\n%s", err, out)
	}
	if !strings.Contains(out, "--- SKIP: TestEachChild/postgres") || !strings.Contains(out, dbtest.SkipNoPostgres) {
		t.Errorf("no visible SKIP line for postgres:\n%s", out)
	}
	if !strings.Contains(out, "ran on sqlite") {
		t.Errorf("sqlite subtest did not run:\n%s", out)
	}
	out, err = run("true")
	if err == nil {
		t.Fatalf("under CI=true a missing PostgreSQL must fail the run:\n%s", out)
	}
	if !strings.Contains(out, "--- FAIL: TestEachChild/postgres") {
		t.Errorf("the postgres subtest should be the failure:\n%s", out)
	}
}
