package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// oneLine fails unless r failed with exit code want and exactly one line on stderr containing
// every part, and nothing on stdout.
func oneLine(t *testing.T, what string, r result, want int, parts ...string) {
	t.Helper()
	if r.code != want || strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
		t.Errorf("%s: exit %d (want %d), stdout %q, stderr %q (want one line)", what, r.code, want, r.stdout, r.stderr)
		return
	}
	for _, p := range parts {
		if !strings.Contains(r.stderr, p) {
			t.Errorf("%s: %q lacks %q", what, r.stderr, p)
		}
	}
}

func TestCLIErrorsAreOneLineWithConsistentExitCodes(t *testing.T) {
	r := runBinary(t, "", nil, "serve", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "ounce serve [--addr A]") || strings.Contains(r.stdout+r.stderr, "flag: help requested") {
		t.Errorf("serve --help: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	oneLine(t, "bad email", runBinary(t, "a long passphrase\n", nil, "user", "add", "--email", "not-an-address"), 2, "ounce: email: enter a valid email address")
	oneLine(t, "unknown flag", runBinary(t, "", nil, "user", "add", "--emial", "a@example.com"), 2, "unknown flag -emial")
	oneLine(t, "unknown log level", runBinary(t, "", []string{"OUNCE_LOG_LEVEL=verbose"}, "migrate"), 2, "OUNCE_LOG_LEVEL must be debug, info, warn or error")
	oneLine(t, "vault import of a missing file", runBinary(t, "", nil, "vault", "import", "/nonexistent/Gold_Stocks.xls"), 2, "/nonexistent/Gold_Stocks.xls")
	oneLine(t, "dealers import of a missing file", runBinary(t, "", nil, "dealers", "import", "/nonexistent/d.json"), 2, "/nonexistent/d.json")
	oneLine(t, "prices import of a missing file", runBinary(t, "", nil, "prices", "import", "/nonexistent/p.csv", "--metal", "gold"), 2, "/nonexistent/p.csv")
	oneLine(t, "vault without subcommand", runBinary(t, "", nil, "vault"), 2, "vault needs a subcommand")
	// Online: the check must come before any provider is polled (nothing else on stderr).
	r = runBinary(t, "", []string{"OUNCE_OFFLINE=0", "OUNCE_PRICE_BASE_URLS=gold-api=http://127.0.0.1:1"}, "dealers", "fetch")
	oneLine(t, "dealers fetch without a contact address", r, 2, "OUNCE_CONTACT_EMAIL is not set")
	// A database that cannot be opened is a failure while running: exit 1.
	oneLine(t, "unreachable PostgreSQL", runBinary(t, "", []string{"DATABASE_URL=postgres://u:secret@127.0.0.1:1/x?sslmode=disable&connect_timeout=2"}, "migrate"), 1, "ounce: ")
}

func TestUserListAndFlagsAfterFiles(t *testing.T) {
	dir := t.TempDir()
	env := []string{"OUNCE_DATA_DIR=" + dir}
	for _, email := range []string{"ann@example.com", "bob@example.com"} {
		if r := runBinary(t, "a long passphrase\n", env, "user", "add", "--email", email); r.code != 0 {
			t.Fatalf("user add: %+v", r)
		}
	}
	r := runBinary(t, "", env, "user", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "ann@example.com") || !strings.Contains(r.stdout, "bob@example.com") || !strings.Contains(r.stdout, "2 accounts") {
		t.Fatalf("user list: %+v", r)
	}
	csv := filepath.Join(dir, "gold.csv")
	if err := os.WriteFile(csv, []byte("date,usd_per_oz\n2026-11-20,2650.50\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runBinary(t, "", env, "prices", "import", csv, "--metal", "gold")
	if r.code != 0 || !strings.Contains(r.stdout, "imported 1 gold daily closes") {
		t.Fatalf("prices import FILE --metal gold: %+v", r)
	}
}

func TestBusyPortIsOneLineAndExit1(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	r := runBinary(t, "", []string{"OUNCE_ADDR=" + ln.Addr().String()}, "serve")
	oneLine(t, "busy port", r, 1, "cannot listen on "+ln.Addr().String()+": the address is already in use")
}

// TestREADMECLIBlockIsTheHelp keeps the README's CLI listing equal to `ounce help`.
func TestREADMECLIBlockIsTheHelp(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "\n## The CLI\n")
	if !ok {
		t.Fatal("README has no \"## The CLI\" section")
	}
	_, block, ok := strings.Cut(after, "```\n")
	if !ok {
		t.Fatal("the CLI section has no code block")
	}
	block, _, _ = strings.Cut(block, "```\n")
	r := runBinary(t, "", nil, "help")
	if r.code != 0 || block != r.stdout {
		t.Fatalf("README's CLI block differs from `ounce help` (exit %d):\n--- README\n%s--- ounce help\n%s", r.code, block, r.stdout)
	}
}
