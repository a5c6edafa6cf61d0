package mail

import (
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
)

// An alert set in another currency and unit is mailed in them, not in dollars an ounce; a
// dollar-per-ounce alert reads as it always did, with the thousands grouped.
func TestAlertMailSpeaksTheAlertsCurrencyAndUnit(t *testing.T) {
	row := func(cur, unit string, target, price int64) db.MailAlertRow {
		var r db.MailAlertRow
		r.ID, r.UserID, r.Metal, r.Direction, r.Currency, r.Unit = 7, 1, "silver", "below", cur, unit
		r.TargetUnits, r.PriceUnits, r.PriceAsOf, r.Email = target, price, 1_764_000_000_000, "m@example.com"
		return r
	}
	m := alertMail(row("INR", "g", 95_0000, 94_5000), "https://ounce.example")
	for _, want := range []string{"₹95.00/g"} {
		if !strings.Contains(m.Subject, want) {
			t.Errorf("subject %q lacks %q", m.Subject, want)
		}
	}
	for _, want := range []string{"your target of ₹95.00 a gram", ": ₹94.50 (price of"} {
		if !strings.Contains(m.Body, want) {
			t.Errorf("body %q lacks %q", m.Body, want)
		}
	}
	if strings.Contains(m.Subject+m.Body, "$") || strings.Contains(m.Body, "an ounce") {
		t.Errorf("a rupee-per-gram alert speaks of dollars or ounces: %q / %q", m.Subject, m.Body)
	}
	m = alertMail(row("", "", 4410_0000, 4405_8000), "https://ounce.example")
	if m.Subject != "Price alert: silver fell to or below $4,410.00" || !strings.Contains(m.Body, "your target of $4,410.00 an ounce: $4,405.80") {
		t.Errorf("dollar alert: %q / %q", m.Subject, m.Body)
	}
}
