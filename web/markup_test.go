package web_test

import (
	"net/http/httptest"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

// TestChartAxisLabelsValidMarkup: the markets page's chart labels its axes with exactly one
// text-anchor each, and no element carries a stray attribute named "else".
func TestChartAxisLabelsValidMarkup(t *testing.T) {
	e := newEnv(t, sqliteStore(t), withMarket(t))
	for _, path := range []string{"/markets", "/markets/chart?metal=silver&range=1Y"} {
		r := e.do(httptest.NewRequest("GET", path, nil))
		if r.Status != 200 {
			t.Fatalf("%s: %d", path, r.Status)
		}
		d := doc(t, r)
		texts := d.Find("svg text")
		if texts.Length() < 3 {
			t.Fatalf("%s: %d chart labels, want an axis's worth", path, texts.Length())
		}
		d.Find("*").Each(func(_ int, s *goquery.Selection) {
			for _, a := range s.Nodes[0].Attr {
				if a.Key == "else" {
					t.Errorf("%s: <%s> has an attribute named else", path, s.Nodes[0].Data)
				}
			}
		})
		texts.Each(func(_ int, s *goquery.Selection) {
			if n := countAttr(s.Nodes[0], "text-anchor"); n != 1 && s.Parent().Is("svg") {
				t.Errorf("%s: axis label %q has %d text-anchor attributes", path, s.Text(), n)
			}
		})
	}
}

func countAttr(n *html.Node, key string) int {
	c := 0
	for _, a := range n.Attr {
		if a.Key == key {
			c++
		}
	}
	return c
}
