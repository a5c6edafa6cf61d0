package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The stamps the test binary is built with, as `make build` stamps a release.
const (
	testVersion   = "9.8.7-test"
	testCommit    = "0123456789abcdef0123456789abcdef01234567"
	testBuildDate = "2026-11-27T12:34:56Z"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binOut  []byte
)

// ounceBinary builds cmd/ounce once per test run, stamped like `make build` does, so tests can
// check what a self-hoster sees: exit codes, stdout and stderr of the real process.
func ounceBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ounce-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "ounce")
		ld := "-X main.version=" + testVersion + " -X main.commit=" + testCommit + " -X main.buildDate=" + testBuildDate
		binOut, binErr = exec.Command("go", "build", "-ldflags", ld, "-o", binPath, ".").CombinedOutput()
	})
	if binErr != nil {
		t.Fatalf("go build: %v\n%s", binErr, binOut)
	}
	return binPath
}

// result is one run of the binary.
type result struct {
	stdout, stderr string
	code           int
}

// runBinary runs the built binary with args in an environment of its own: a fresh data
// directory, offline, no PostgreSQL, plus env.
func runBinary(t *testing.T, stdin string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(ounceBinary(t), args...)
	cmd.Env = append(cleanEnv(), "OUNCE_DATA_DIR="+t.TempDir(), "OUNCE_OFFLINE=1")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

// cleanEnv is the test process's environment without any OUNCE_* or DATABASE_URL setting.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OUNCE_") && !strings.HasPrefix(kv, "DATABASE_URL=") {
			env = append(env, kv)
		}
	}
	return env
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func TestVersionAndHealthzNameTheBuild(t *testing.T) {
	r := runBinary(t, "", nil, "version")
	if r.code != 0 {
		t.Fatalf("version exited %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"ounce " + testVersion + "\n", "commit: " + testCommit + "\n", "built:  " + testBuildDate + "\n", "go:     go1."} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("ounce version lacks %q:\n%s", want, r.stdout)
		}
	}

	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, ounceBinary(t), "serve")
	cmd.Env = append(cleanEnv(), "OUNCE_DATA_DIR="+t.TempDir(), "OUNCE_OFFLINE=1", "OUNCE_ADDR="+addr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() }()
	var body struct{ Status, Version string }
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			err = json.NewDecoder(res.Body).Decode(&body)
			res.Body.Close()
			if err == nil {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no /healthz: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if body.Status != "ok" || body.Version != testVersion {
		t.Fatalf("/healthz = %+v, want status ok and version %s", body, testVersion)
	}
}
