package metals

import "testing"

// TestPickerAliases: the words people type into the holding picker find the product — the
// issue's list (ASE, Maple, Krugerrand, kilo, 10 oz, junk, 90 %, 40 %) — and an alias that
// names exactly one product picks it.
func TestPickerAliases(t *testing.T) {
	for _, c := range []struct{ q, first string }{
		{"ASE", "silver-american-eagle-1oz"},
		{"Maple", "gold-maple-leaf-1oz"},
		{"Krugerrand", "gold-krugerrand-1oz"},
		{"kilo", "gold-bar-1kg"},
		{"10 oz", "gold-bar-10oz"},
		{"junk", "silver-junk-90-face"},
		{"90 %", "silver-junk-90-face"},
		{"40 %", "silver-junk-40-face"},
	} {
		got := SearchProducts(c.q, "")
		if len(got) == 0 || got[0].ID != c.first {
			ids := []string{}
			for _, p := range got {
				ids = append(ids, p.ID)
			}
			t.Errorf("SearchProducts(%q) = %v, want %s first", c.q, ids, c.first)
		}
	}
	for q, want := range map[string]string{"ASE": "silver-american-eagle-1oz", "ase": "silver-american-eagle-1oz", "Krugerrand": "gold-krugerrand-1oz",
		"junk": "silver-junk-90-face", "90 %": "silver-junk-90-face", "40 %": "silver-junk-40-face", "american silver eagle 1 oz": "silver-american-eagle-1oz"} {
		if p, ok := ProductByAlias(q); !ok || p.ID != want {
			t.Errorf("ProductByAlias(%q) = %s %v, want %s", q, p.ID, ok, want)
		}
	}
	if p, ok := ProductByAlias("maple"); ok {
		t.Errorf("ProductByAlias(maple) = %s: gold and silver maples share the word", p.ID)
	}
}
