package news

import (
	"strings"

	"github.com/ouncehq/ounce/internal/format"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/shopspring/decimal"
)

// analysis writes the two-to-four-sentence note shown under a headline. It
// draws only on the item's category and metals and on the price context; the
// general remarks are about how such news usually reaches a holder of coins and
// bars, never claims about what is happening in the world.
func analysis(it Item, pc PriceContext) string {
	subject := metalPhrase(it.Metals)
	var s []string
	s = append(s, intro(it.Category, subject))
	if p := priceSentence(it.Metals, pc); p != "" {
		s = append(s, p)
	}
	s = append(s, takeaway(it.Category, firstChange(it.Metals, pc)))
	if len(it.Metals) == 0 {
		s = append(s, "The item does not name a specific metal, so its effect on any one holding is indirect.")
	}
	return strings.Join(s, " ")
}

func intro(c Category, subject string) string {
	switch c {
	case Breaking:
		return "This headline reports a sudden move or disruption in the " + subject + " market."
	case SupplyDemand:
		return "This is a supply-and-demand story about how much physical " + subject + " is being produced, used or bought."
	case CentralBank:
		return "This is about central banks, whose reserve decisions and interest rates shape the backdrop for " + subject + " over months rather than days."
	case Policy:
		return "This is a policy story: taxes, tariffs and rules can change what it costs to buy, hold or sell " + subject + "."
	case Mining:
		return "This is mining-company news, which matters more to shareholders of miners than to holders of physical " + subject + "."
	case Investment:
		return "This is about investment flows, such as funds and futures traders, that move the quoted price of " + subject + "."
	case Geopolitical:
		if subject == "platinum" || subject == "palladium" || subject == "platinum and palladium" {
			return "This is a geopolitical story; for " + subject + ", political risk tends to matter through supply and trade routes more than through safe-haven buying."
		}
		return "This is a geopolitical story; political risk and conflict can send some buyers toward " + subject + " as a safe haven."
	default:
		return "This is commentary or a forecast about " + subject + ", which is opinion rather than news."
	}
}

func takeaway(c Category, change *decimal.Decimal) string {
	switch c {
	case Breaking:
		switch {
		case change != nil && change.IsNegative():
			return "For a stacker, a sharp drop can be a chance to add on a plan, but dealer premiums often widen when buyers rush in, so compare the total cost per ounce."
		case change != nil && change.IsPositive():
			return "For a stacker, a sharp rise is a moment to check what holdings are worth rather than to chase the move; premiums and buy-back spreads shift too."
		}
		return "For a stacker, fast moves are rarely a reason to trade physical metal in a hurry; compare premiums and buy-back prices before acting either way."
	case SupplyDemand:
		return "Shifts in physical supply and demand show up first in premiums and delivery times on coins and bars, so it pays to compare dealers before buying."
	case CentralBank:
		return "Interest rates change the cost of holding metal that pays no income, so decisions like this matter to a long-term position over months, not to today's purchase."
	case Policy:
		return "If the rule applies where you live, it can change the after-tax or delivered cost of coins and bars, so check the details before the next purchase or sale."
	case Mining:
		return "Company results and mine problems rarely move the price of a single coin or bar, though a lasting change in output can tighten supply over time."
	case Investment:
		return "Fund and futures flows can push the spot price around without any change in physical supply, so they explain daily swings better than long-term value."
	case Geopolitical:
		return "Risk-driven rallies can fade as quickly as they start once tensions ease, so they are rarely a good reason to buy in a hurry."
	default:
		return "Forecasts are often wrong on timing; someone buying on a schedule can treat them as background rather than a signal."
	}
}

// priceSentence quotes the price of up to two named metals, or gold as the
// benchmark when none is named. It says so when the prices may be old.
func priceSentence(ms []metals.Metal, pc PriceContext) string {
	benchmark := false
	if len(ms) == 0 {
		ms, benchmark = []metals.Metal{metals.Gold}, true
	}
	var quoted []string
	var missing []string
	for _, m := range ms {
		if len(quoted) == 2 {
			break
		}
		pp, ok := pc.Prices[m]
		if !ok || !pp.Price.IsPositive() {
			missing = append(missing, m.Title())
			continue
		}
		quoted = append(quoted, quote(m, pp, pc.Stale))
	}
	if len(quoted) == 0 {
		if benchmark {
			return ""
		}
		return "Ounce has no current price for " + format.AndList(lowerAll(missing)) + ", so check a live quote before acting."
	}
	body := format.AndList(quoted)
	switch {
	case benchmark && pc.Stale:
		return "For reference, the latest gold price Ounce has may be out of date: " + body + "."
	case benchmark:
		return "For reference, " + body + "."
	case pc.Stale:
		return "The latest prices Ounce has may be out of date: " + body + "."
	}
	return upperFirst(body) + "."
}

// quote renders "silver is at $31.20, up 1.40% today".
func quote(m metals.Metal, pp PricePoint, stale bool) string {
	name := strings.ToLower(m.Title())
	verb := " is at "
	when := " today"
	if stale {
		verb = " was last at "
		when = " on the day"
		if !pp.Day.IsZero() {
			// A stale move is the move of its own day, which the reader is told.
			when = " on " + format.Date(pp.Day)
		}
	}
	pct := metals.Percent(pp.ChangePct)
	var move string
	switch {
	case pct.IsPositive():
		move = "up " + format.Pct(pct) + when
	case pct.IsNegative():
		move = "down " + format.Pct(pct.Abs()) + when
	default:
		move = "unchanged" + when
	}
	return name + verb + FormatUSD(pp.Price) + ", " + move
}

// FormatUSD renders a dollar amount rounded to cents with thousands separators
// ("$2,345.60"), the way prices appear on every page (the one formatter).
func FormatUSD(d decimal.Decimal) string { return format.USD(d) }

func firstChange(ms []metals.Metal, pc PriceContext) *decimal.Decimal {
	for _, m := range ms {
		if pp, ok := pc.Prices[m]; ok && pp.Price.IsPositive() {
			c := pp.ChangePct
			return &c
		}
	}
	return nil
}

func metalPhrase(ms []metals.Metal) string {
	if len(ms) == 0 {
		return "precious metals"
	}
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = strings.ToLower(m.Title())
	}
	return format.AndList(names)
}

func lowerAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strings.ToLower(x)
	}
	return out
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
