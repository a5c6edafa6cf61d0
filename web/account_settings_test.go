package web_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/portfolio"
)

const accountPW = "correct horse battery"

// TestAccountSettings: profile, email and password changes with the current password, other
// sessions signed out by a password change, and deletion with password and typed confirmation.
func TestAccountSettings(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		b := e.browser()
		b.signUp("acct@example.com")
		other := e.browser() // a second browser of the same member
		other.get("/login")
		if r := other.post("/login", url.Values{"email": {"acct@example.com"}, "password": {accountPW}}, false); r.Status != 303 {
			t.Fatalf("second sign-in: %d", r.Status)
		}
		page := doc(t, b.get("/settings/account"))
		for _, f := range []string{"#profile-form", "#email-form", "#password-form", "#delete-form", "#download-data"} {
			if page.Find(f).Length() != 1 {
				t.Errorf("%s missing", f)
			}
		}

		// Profile.
		if r := b.post("/settings/account/profile", url.Values{"display_name": {"Stacker Sam"}, "time_zone": {"Europe/London"}}, false); r.Status != 303 {
			t.Fatalf("profile: %d %s", r.Status, r.Body)
		}
		r := b.post("/settings/account/profile", url.Values{"display_name": {"x"}, "time_zone": {"Mars/Olympus"}}, false)
		if r.Status != 422 || !strings.Contains(string(r.Body), "Choose a time zone name such as America/New_York") {
			t.Fatalf("bad zone: %d %s", r.Status, r.Body)
		}
		u, _ := e.store.UserByEmail(t.Context(), "acct@example.com")
		if u.DisplayName != "Stacker Sam" || u.TimeZone != "Europe/London" {
			t.Fatalf("profile stored: %+v", u)
		}

		// Email: the password is required.
		r = b.post("/settings/account/email", url.Values{"email": {"new@example.com"}, "email_password": {"wrong password here"}}, false)
		if r.Status != 422 || !strings.Contains(string(r.Body), "That is not your current password.") || strings.Contains(string(r.Body), "wrong password here") {
			t.Fatalf("email with a wrong password: %d", r.Status)
		}
		if r := b.post("/settings/account/email", url.Values{"email": {"New@Example.com"}, "email_password": {accountPW}}, false); r.Status != 303 {
			t.Fatalf("email: %d %s", r.Status, r.Body)
		}
		if _, err := e.store.UserByEmail(t.Context(), "new@example.com"); err != nil {
			t.Fatal("email not changed")
		}

		// Password: the other browser is signed out, this one stays.
		r = b.post("/settings/account/password", url.Values{"current_password": {"nope nope nope"}, "new_password": {"another good passphrase"}}, false)
		if r.Status != 422 || !strings.Contains(string(r.Body), "That is not your current password.") {
			t.Fatalf("password with a wrong current one: %d", r.Status)
		}
		if r := other.get("/settings/account"); r.Status != 200 {
			t.Fatalf("other browser before the change: %d", r.Status)
		}
		if r := b.post("/settings/account/password", url.Values{"current_password": {accountPW}, "new_password": {"another good passphrase"}}, false); r.Status != 303 {
			t.Fatalf("password: %d %s", r.Status, r.Body)
		}
		if r := b.get("/settings/account?done=password"); r.Status != 200 || !strings.Contains(string(r.Body), "Password changed.") {
			t.Fatalf("this browser after the change: %d", r.Status)
		}
		if r := other.get("/settings/account"); r.Status == 200 {
			t.Fatal("the other browser is still signed in after the password change")
		}

		// Delete: password and the typed words are both required.
		h, err := e.store.InsertHolding(t.Context(), portfolio.WithTotals(db.Holding{UserID: u.ID, Metal: "gold", Quantity: 1, WeightOz: pfD("1"), PurchasePrice: pfD("2000"), Fees: pfD("0")}))
		if err != nil {
			t.Fatal(err)
		}
		b.get("/settings/account")
		r = b.post("/settings/account/delete", url.Values{"delete_password": {"another good passphrase"}, "confirm": {"delete"}}, false)
		if r.Status != 422 || !strings.Contains(string(r.Body), "Type delete my account to confirm.") {
			t.Fatalf("delete without the words: %d %s", r.Status, r.Body)
		}
		r = b.post("/settings/account/delete", url.Values{"delete_password": {accountPW}, "confirm": {"Delete my account"}}, false)
		if r.Status != 422 {
			t.Fatalf("delete with the old password: %d", r.Status)
		}
		if r := b.post("/settings/account/delete", url.Values{"delete_password": {"another good passphrase"}, "confirm": {"Delete my account"}}, false); r.Status != 303 {
			t.Fatalf("delete: %d %s", r.Status, r.Body)
		}
		if _, err := e.store.UserByID(t.Context(), u.ID); err == nil {
			t.Fatal("the account is still there")
		}
		if _, err := e.store.HoldingByID(t.Context(), u.ID, h.ID); err == nil {
			t.Fatal("the holding is still there")
		}
		if r := b.get("/settings/account"); r.Status == 200 {
			t.Fatal("still signed in after deleting the account")
		}
	})
}
