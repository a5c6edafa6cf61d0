package web_test

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// zoneOffToday is a time zone whose date differs from UTC's right now (Kiritimati, UTC+14,
// from 10:00 UTC; Pago Pago, UTC−11, before), so a date default taken in UTC shows wrong.
func zoneOffToday(t *testing.T) (string, string) {
	name := "Pacific/Pago_Pago"
	if time.Now().UTC().Hour() >= 10 {
		name = "Pacific/Kiritimati"
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	today := time.Now().In(loc).Format("2006-01-02")
	if today == time.Now().UTC().Format("2006-01-02") {
		t.Fatalf("%s shares UTC's date", name)
	}
	return name, today
}

// TestHoldingFormWords: the add-holding form starts on today in the member's zone, offers a
// "Save and add another" that returns to an empty form naming what was saved, and its
// picker knows the words people use (ASE, junk, kilo…).
func TestHoldingFormWords(t *testing.T) {
	eachEngine(t, nil, func(t *testing.T, e *env) {
		zone, today := zoneOffToday(t)
		b := e.browser()
		b.signUp("words@example.com")
		b.get("/settings/account")
		if r := b.post("/settings/account/profile", url.Values{"display_name": {"Kiri"}, "time_zone": {zone}}, false); r.Status != 303 {
			t.Fatalf("time zone: %d %s", r.Status, r.Body)
		}
		d := doc(t, b.get("/holdings/new"))
		if v, _ := d.Find("#f-purchase_date").Attr("value"); v != today {
			t.Errorf("purchase date starts at %q, want today in %s %s", v, zone, today)
		}
		if v, _ := d.Find("#f-purchase_date").Attr("max"); v != today {
			t.Errorf("purchase date max %q, want %s", v, today)
		}
		// The picker's options carry the aliases, so the browser's list finds them.
		opts := d.Find("#product-options option")
		for _, word := range []string{"ase", "junk", "kilo", "krugerrand", "10 oz", "90%", "40%"} {
			found := false
			opts.Each(func(_ int, o *goquery.Selection) {
				if a, _ := o.Attr("data-aliases"); strings.Contains(strings.ToLower(a+" "+o.Text()), word) {
					found = true
				}
			})
			if !found {
				t.Errorf("no picker option knows %q", word)
			}
		}
		if d.Find(`button[name="then"][value="another"]`).Length() != 1 {
			t.Fatal("no Save and add another button")
		}
		form := url.Values{"metal": {"silver"}, "product_name": {"American Silver Eagle 1 oz"}, "quantity": {"20"}, "weight_oz": {"1"},
			"purchase_price": {"32.50"}, "purchase_date": {"2026-11-01"}, "then": {"another"}}
		r := b.post("/holdings", form, false)
		loc := r.Header.Get("Location")
		if r.Status != 303 || !strings.HasPrefix(loc, "/holdings/new?") {
			t.Fatalf("save and add another: %d to %q", r.Status, loc)
		}
		d = doc(t, b.get(loc))
		if flash := d.Find(`[role="status"]`).Text(); !strings.Contains(flash, "20 units of American Silver Eagle 1 oz") {
			t.Errorf("flash %q does not name what was saved", flash)
		}
		if v, _ := d.Find("#f-product_name").Attr("value"); v != "" {
			t.Errorf("the next form is not empty: product %q", v)
		}
		// Plain Save still goes to the ledger.
		delete(form, "then")
		if r := b.post("/holdings", form, false); r.Status != 303 || r.Header.Get("Location") != "/holdings?saved=1" {
			t.Errorf("save: %d to %q", r.Status, r.Header.Get("Location"))
		}
	})
}

// TestFailedAlertFormKeepsValues: an alert form that fails comes back with what was typed —
// target, direction and repeat — on the card that was submitted.
func TestFailedAlertFormKeepsValues(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		b := e.browser()
		b.signUp("typed@example.com")
		b.get("/alerts")
		r := b.post("/alerts", url.Values{"metal": {"platinum"}, "direction": {"below"}, "target_price": {"12abc"}, "repeat": {"rearm"}}, false)
		if r.Status != 422 {
			t.Fatalf("bad target: %d", r.Status)
		}
		card := doc(t, r).Find(`[data-alert-card]`).First()
		if m, _ := card.Attr("data-alert-card"); m != "platinum" {
			t.Fatalf("first card is %q, want the submitted platinum", m)
		}
		if v, _ := card.Find(`input[name="target_price"]`).Attr("value"); v != "12abc" {
			t.Errorf("target %q, want what was typed", v)
		}
		if v, _ := card.Find(`select[name="direction"] option[selected]`).Attr("value"); v != "below" {
			t.Errorf("direction %q, want below", v)
		}
		if v, _ := card.Find(`select[name="repeat"] option[selected]`).Attr("value"); v != "rearm" {
			t.Errorf("repeat %q, want rearm", v)
		}
	})
}

// TestConfirmWithoutJavaScript: deleting a holding, undoing a sale and deleting an alert each
// have a confirm page reached by a plain link (GET changes nothing), whose button posts.
func TestConfirmWithoutJavaScript(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		b := e.browser()
		b.signUp("confirm@example.com")
		b.get("/holdings/new")
		hold := url.Values{"metal": {"gold"}, "product_name": {"Gold Bar 1 oz"}, "quantity": {"3"}, "weight_oz": {"1"}, "purchase_price": {"2000"}, "purchase_date": {"2026-10-01"}}
		for range 2 {
			if r := b.post("/holdings", hold, false); r.Status != 303 {
				t.Fatalf("save: %d %s", r.Status, r.Body)
			}
		}
		d := doc(t, b.get("/holdings"))
		links := d.Find(`a[href$="/delete"][aria-label="Delete Gold Bar 1 oz"]`)
		if links.Length() != 2 {
			t.Fatalf("%d delete links, want 2 plain links", links.Length())
		}
		del, _ := links.First().Attr("href")
		sellID := strings.TrimSuffix(strings.TrimPrefix(del, "/holdings/"), "/delete")
		c := doc(t, b.get(del))
		if q := c.Find("h1").Text(); !strings.Contains(q, "Delete Gold Bar 1 oz?") {
			t.Fatalf("confirm page asks %q", q)
		}
		if a, _ := c.Find(`main form[method="post"]`).Attr("action"); a != del {
			t.Fatalf("confirm form posts to %q", a)
		}
		if doc(t, b.get("/holdings")).Find(`a[aria-label="Delete Gold Bar 1 oz"]`).Length() != 2 {
			t.Fatal("GET of the confirm page deleted something")
		}
		if r := b.post(del, nil, false); r.Status != 303 {
			t.Fatalf("delete: %d", r.Status)
		}
		if n := doc(t, b.get("/holdings")).Find(`a[aria-label="Delete Gold Bar 1 oz"]`).Length(); n != 1 {
			t.Fatalf("%d holdings after delete, want 1", n)
		}
		_ = sellID

		// Undo a sale: the list links to a confirm page that posts with the way back.
		other, _ := doc(t, b.get("/holdings")).Find(`a[aria-label="Delete Gold Bar 1 oz"]`).Attr("href")
		id := strings.TrimSuffix(strings.TrimPrefix(other, "/holdings/"), "/delete")
		b.get("/holdings/" + id + "/sell")
		if r := b.post("/holdings/"+id+"/sell", url.Values{"quantity": {"1"}, "price_per_unit": {"2100"}, "sold_on": {"2026-11-01"}}, false); r.Status != 303 {
			t.Fatalf("sell: %d %s", r.Status, r.Body)
		}
		undo, ok := doc(t, b.get("/holdings/sales")).Find(`a[href*="/undo"]`).Attr("href")
		if !ok || !strings.HasSuffix(undo, "?back=sales") {
			t.Fatalf("undo link %q", undo)
		}
		c = doc(t, b.get(undo))
		action, _ := c.Find(`main form[method="post"]`).Attr("action")
		if back, _ := c.Find(`input[name="back"]`).Attr("value"); back != "sales" || !strings.HasSuffix(action, "/undo") {
			t.Fatalf("undo confirm posts to %q with back %q", action, back)
		}
		if r := b.post(action, url.Values{"back": {"sales"}}, false); r.Status != 303 || r.Header.Get("Location") != "/holdings/sales?undone=1" {
			t.Fatalf("undo: %d %q", r.Status, r.Header.Get("Location"))
		}

		// An alert.
		b.get("/alerts")
		if r := b.post("/alerts", url.Values{"metal": {"silver"}, "direction": {"above"}, "target_price": {"99"}, "repeat": {"once"}}, false); r.Status != 303 {
			t.Fatalf("alert: %d", r.Status)
		}
		href, ok := doc(t, b.get("/alerts")).Find(`[data-alert-id] a[href$="/delete"]`).Attr("href")
		if !ok {
			t.Fatal("no plain delete link for the alert")
		}
		c = doc(t, b.get(href))
		if q := c.Find("h1").Text(); !strings.Contains(q, "Delete the alert for Silver above $99.00?") {
			t.Fatalf("alert confirm asks %q", q)
		}
		if doc(t, b.get("/alerts")).Find(`[data-alert-id]`).Length() != 1 {
			t.Fatal("GET of the confirm page deleted the alert")
		}
		if r := b.post(href, nil, false); r.Status != 303 {
			t.Fatalf("delete alert: %d", r.Status)
		}
		if doc(t, b.get("/alerts")).Find(`[data-alert-id]`).Length() != 0 {
			t.Fatal("alert still listed")
		}
	})
}

// TestPagesOneDateStyleOneMinus loads rendered pages and looks for the styles the one
// formatter retired: US dates ("Nov 27, 2026", "November 27, 2026") and a hyphen for the
// minus sign of money ("-$5.00").
func TestPagesOneDateStyleOneMinus(t *testing.T) {
	usDate := regexp.MustCompile(`\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{1,2}, \d{4}\b`)
	hyphenMoney := regexp.MustCompile(`(^|[\s>(])-\$\d`)
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		b := e.browser()
		b.signUp("styles@example.com")
		b.get("/holdings/new")
		if r := b.post("/holdings", url.Values{"metal": {"gold"}, "product_name": {"Gold Bar 1 oz"}, "quantity": {"1"}, "weight_oz": {"1"},
			"purchase_price": {"99999"}, "purchase_date": {"2026-10-01"}}, false); r.Status != 303 {
			t.Fatalf("save: %d", r.Status)
		}
		for _, path := range []string{"/", "/markets", "/markets/gold", "/vault", "/signal", "/intel", "/holdings", "/portfolio", "/alerts", "/dealers", "/advisor"} {
			r := b.get(path)
			if r.Status != 200 {
				continue
			}
			text := doc(t, r).Find("main").Text()
			if m := usDate.FindString(text); m != "" {
				t.Errorf("%s shows a US-style date %q", path, m)
			}
			if m := hyphenMoney.FindString(text); m != "" {
				t.Errorf("%s writes money with a hyphen: %q", path, m)
			}
		}
	})
}
