package components

import (
	"strings"
	"testing"
)

// TestMetaDescription: a page's own sentence wins; without one the page is named by its title,
// and a page without a title gets the site's sentence.
func TestMetaDescription(t *testing.T) {
	own := Meta{Title: "Markets"}.Describe("Spot prices with their dates.")
	if got := own.MetaDescription(); got != "Spot prices with their dates." {
		t.Errorf("own sentence: %q", got)
	}
	titled := Meta{Title: "Import holdings"}.MetaDescription()
	if !strings.HasPrefix(titled, "Import holdings ") {
		t.Errorf("title default %q does not name the page", titled)
	}
	bare := Meta{}.MetaDescription()
	if bare == "" || bare == titled {
		t.Errorf("site default %q", bare)
	}
}
