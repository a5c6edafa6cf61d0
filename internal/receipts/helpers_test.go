package receipts

import (
	"os/exec"
	"testing"
)

// testService is a service for extraction and parsing (no store): the real tools, which the
// suite requires (.ci/tools installs them), so a missing one fails rather than skips.
func testService(t testing.TB) *Service {
	t.Helper()
	for _, tool := range []string{toolPDFText, toolPDFInfo, toolPDFToPPM, toolTesseract, toolConvert} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed (Debian package %s); run bash .ci/tools", tool, toolPackages[tool])
		}
	}
	return New(Deps{Config: Config{TempDir: t.TempDir()}})
}
