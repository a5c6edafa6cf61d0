package portfoliohttp

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/internal/portfolio"
)

// The documented bodies and the parsers read the same fields: a field added to one and not
// the other fails here.
func TestBodyStructsNameTheParsersFields(t *testing.T) {
	for _, c := range []struct {
		body   any
		fields []string
	}{{HoldingCreateJSON{}, append(slices.Clone(portfolio.HoldingFields), portfolio.CustodyFields...)}, {SaleCreateJSON{}, portfolio.SaleFields}} {
		var names []string
		rt := reflect.TypeOf(c.body)
		for i := 0; i < rt.NumField(); i++ {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			names = append(names, name)
		}
		want := slices.Clone(c.fields)
		slices.Sort(names)
		slices.Sort(want)
		if !slices.Equal(names, want) {
			t.Errorf("%s documents %v, the parser reads %v", rt.Name(), names, want)
		}
	}
}

// The limits in the document are the validator's constants.
func TestHoldingSchemaStatesTheValidatorsLimits(t *testing.T) {
	s := HoldingSchemas()["HoldingCreate"]["properties"].(map[string]any)
	if got := s["quantity"].(map[string]any)["maximum"]; got != portfolio.MaxQuantity {
		t.Errorf("quantity maximum %v, validator %d", got, portfolio.MaxQuantity)
	}
	if got := s["notes"].(map[string]any)["maxLength"]; got != portfolio.MaxNotes {
		t.Errorf("notes maxLength %v, validator %d", got, portfolio.MaxNotes)
	}
}
