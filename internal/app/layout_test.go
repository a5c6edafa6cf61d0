package app_test

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/ouncehq/ounce/"

// imports lists each package matching pattern with its direct imports (tests' too when
// withTests), as go list reports them.
func imports(t *testing.T, pattern string, withTests bool) map[string][]string {
	t.Helper()
	format := `{{.ImportPath}} {{join .Imports " "}}`
	if withTests {
		format += ` {{join .TestImports " "}} {{join .XTestImports " "}}`
	}
	out, err := exec.Command("go", "list", "-f", format, pattern).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pattern, err)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		m[f[0]] = f[1:]
	}
	return m
}

// infrastructure are the internal packages that are no area's service: the web layer may use them.
var infrastructure = map[string]bool{"apperr": true, "job": true, "ratelimit": true, "outbound": true, "metals": true}

// TestLayout: the house's dependency rule where the areas meet. web imports no area service
// (the composition root hands it handlers and jobs); no handlers package imports db (domain
// types are named by their services); only the composition root, the CLI and the harnesses
// import web or app.
func TestLayout(t *testing.T) {
	for _, imp := range imports(t, "../../web", false)[module+"web"] {
		if rest, ok := strings.CutPrefix(imp, module+"internal/"); ok && !infrastructure[strings.Split(rest, "/")[0]] {
			t.Errorf("web imports the area service %s", imp)
		}
	}
	for pkg, imps := range imports(t, "../../handlers/...", true) {
		for _, imp := range imps {
			if imp == module+"db" {
				t.Errorf("%s imports db", pkg)
			}
		}
	}
	for pkg, imps := range imports(t, "../../...", false) {
		for _, imp := range imps {
			switch {
			case imp == module+"web" && pkg != module+"internal/app":
				t.Errorf("%s imports web; only internal/app builds the server", pkg)
			case imp == module+"internal/app" && !strings.HasPrefix(pkg, module+"cmd/") && !strings.HasPrefix(pkg, module+"bench/"):
				t.Errorf("%s imports the composition root", pkg)
			case strings.HasPrefix(imp, module+"cmd/"):
				t.Errorf("%s imports %s", pkg, imp)
			}
		}
	}
}
