package metals

import (
	"testing"

	"github.com/shopspring/decimal"
)

func TestCatalogueIsConsistent(t *testing.T) {
	seen := map[string]bool{}
	forms := map[Metal]map[Form]bool{}
	for _, p := range Products {
		if seen[p.ID] {
			t.Errorf("duplicate id %s", p.ID)
		}
		seen[p.ID] = true
		if !p.Metal.Valid() || !p.FineOz.IsPositive() || !p.Purity.IsPositive() || p.Purity.GreaterThan(decimal.NewFromInt(1)) || p.Name == "" {
			t.Errorf("bad product %+v", p)
		}
		if forms[p.Metal] == nil {
			forms[p.Metal] = map[Form]bool{}
		}
		forms[p.Metal][p.Form] = true
	}
	for _, m := range All {
		if !forms[m][FormCoin] {
			t.Errorf("%s has no coin", m)
		}
	}
	// Every product the ledger's picker promises.
	for _, id := range []string{"gold-american-eagle-1oz", "silver-american-eagle-1oz", "platinum-american-eagle-1oz",
		"gold-maple-leaf-1oz", "silver-maple-leaf-1oz", "platinum-maple-leaf-1oz", "palladium-maple-leaf-1oz",
		"gold-krugerrand-1oz", "silver-britannia-1oz", "gold-american-buffalo-1oz", "gold-philharmonic-1oz", "silver-kangaroo-1oz",
		"silver-panda-30g", "silver-round-1oz", "silver-bar-1oz", "silver-bar-10oz", "silver-bar-100oz", "silver-bar-1kg",
		"gold-bar-1g", "gold-bar-1oz", "gold-bar-10oz", "gold-bar-1kg", "silver-junk-90-face", "silver-junk-40-face", "silver-war-nickel"} {
		if _, ok := ProductByID(id); !ok {
			t.Errorf("missing %s", id)
		}
	}
}

func TestCatalogueWeights(t *testing.T) {
	cases := map[string]string{
		"silver-bar-1kg": "32.15075", // 1000 g / 31.1034768
		"gold-bar-1g":    "0.03215",
		"gold-panda-30g": "0.96356", // 29.97 g fine (30 g at .999)
	}
	for id, want := range cases {
		p, _ := ProductByID(id)
		if !p.FineOz.Equal(decimal.RequireFromString(want)) {
			t.Errorf("%s: %s oz, want %s", id, p.FineOz, want)
		}
	}
	junk, _ := ProductByID("silver-junk-90-face")
	if got := junk.FaceOz(decimal.NewFromInt(10)); !got.Equal(decimal.RequireFromString("7.15")) {
		t.Errorf("$10 face 90%% = %s oz, want 7.15", got)
	}
}

func TestSearchProducts(t *testing.T) {
	if got := SearchProducts("eagle", Silver); len(got) != 1 || got[0].ID != "silver-american-eagle-1oz" {
		t.Errorf("silver eagle: %+v", got)
	}
	if got := SearchProducts("10 oz bar", ""); len(got) < 2 || got[0].ID != "gold-bar-10oz" && got[0].ID != "silver-bar-10oz" {
		t.Errorf("10 oz bar: %+v", got)
	}
	maples := map[Metal]bool{}
	for _, p := range SearchProducts("MAPLE", "") {
		maples[p.Metal] = true
	}
	if len(maples) != 4 {
		t.Errorf("maple leafs of four metals: %v", maples)
	}
	if got := SearchProducts("junk", ""); len(got) == 0 || got[0].ID != "silver-junk-90-face" {
		t.Errorf("junk: %+v", got)
	}
	if got := SearchProducts("", Palladium); len(got) != 2 {
		t.Errorf("palladium catalogue: %d", len(got))
	}
	if got := SearchProducts("unobtainium", ""); len(got) != 0 {
		t.Errorf("no match: %+v", got)
	}
}
