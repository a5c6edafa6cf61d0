package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 11, items 10 and 11: a newcomer's `make test` and `make run`.

// runTools runs .ci/tools from the repository root with extra environment, returning its
// exit error, stdout and stderr.
func runTools(t *testing.T, env ...string) (error, string, string) {
	t.Helper()
	root, _ := filepath.Abs("..")
	cmd := exec.Command("/bin/bash", filepath.Join(root, ".ci", "tools"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return err, out.String(), errb.String()
}

// TestToolsCheckSaysWhatToInstall (item 10): `make test` runs .ci/tools first. When it may
// not install (no root, no sudo — here forced by OUNCE_TOOLS_NO_INSTALL), a missing browser
// or Node.js is one line naming the packages, and a failure, never a quiet skip.
func TestToolsCheckSaysWhatToInstall(t *testing.T) {
	if err, out, errs := runTools(t); err != nil || out != "" || errs != "" {
		t.Fatalf("with every tool present: %v %q %q", err, out, errs)
	}
	err, out, errs := runTools(t, "CHROMIUM=/nonexistent/chromium", "OUNCE_TOOLS_NO_INSTALL=1")
	if err == nil || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "apt-get install chromium") {
		t.Fatalf("without Chromium: %v stdout %q stderr %q", err, out, errs)
	}

	// A PATH with every tool but Node.js and npm.
	bin := t.TempDir()
	for _, name := range []string{"mktemp", "rm", "id", "tail", "tesseract", "pdftotext", "pdftoppm", "convert-im6.q16", "psql", "go"} {
		p, err := exec.LookPath(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := os.Symlink(p, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	err, out, errs = runTools(t, "PATH="+bin, "OUNCE_TOOLS_NO_INSTALL=1")
	if err == nil || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "nodejs npm") {
		t.Fatalf("without Node.js: %v stdout %q stderr %q", err, out, errs)
	}
}

// TestBrowserTestFailsWithoutChromium (item 10): the browser journey fails, with the line
// saying what to install, when Chromium is missing — it is never skipped.
func TestBrowserTestFailsWithoutChromium(t *testing.T) {
	cmd := exec.Command("go", "test", "-count=1", "-run", "^TestBrowserJourney$", "-v", ".")
	cmd.Env = append(os.Environ(), "CHROMIUM=/nonexistent/chromium", "CI=true")
	out, err := cmd.CombinedOutput()
	s := string(out)
	if err == nil || !strings.Contains(s, "--- FAIL: TestBrowserJourney") || strings.Contains(s, "--- SKIP") || !strings.Contains(s, "run `bash .ci/tools`") {
		t.Fatalf("browser test without Chromium: %v\n%s", err, s)
	}
}

// TestMakeRunSaysWhatItDoes (item 11): `make run` says it is building (the first build takes
// minutes and prints nothing itself), builds, says it is starting, and starts; the README
// shows the quiet offline start.
func TestMakeRunSaysWhatItDoes(t *testing.T) {
	root, _ := filepath.Abs("..")
	dir := t.TempDir()
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), mk, 0o644); err != nil {
		t.Fatal(err)
	}
	// A stand-in for go that reports what it is asked and builds a stand-in server.
	fakeGo := filepath.Join(dir, "fakego")
	script := `#!/bin/sh
echo "go $*"
if [ "$1" = build ]; then
  out=""
  while [ $# -gt 0 ]; do [ "$1" = -o ] && out="$2"; shift; done
  printf '#!/bin/sh\necho "ounce $*"\n' > "$out"
  chmod +x "$out"
fi
`
	if err := os.WriteFile(fakeGo, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("make", "--no-print-directory", "run", "GO="+fakeGo)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make run: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	want := []string{"make run: building", "go build", "make run: starting ./ounce serve", "ounce serve"}
	if len(lines) != len(want) {
		t.Fatalf("make run printed:\n%s", out)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Fatalf("line %d is %q, want it to start %q; make run printed:\n%s", i+1, lines[i], w, out)
		}
	}
	readme, _ := os.ReadFile(filepath.Join(root, "README.md"))
	if !strings.Contains(string(readme), "OUNCE_OFFLINE=1 make run") {
		t.Fatal("the README does not show OUNCE_OFFLINE=1 make run")
	}
}
