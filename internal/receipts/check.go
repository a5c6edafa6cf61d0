package receipts

import (
	"fmt"
	"strings"

	"github.com/ouncehq/ounce/internal/format"
	"github.com/shopspring/decimal"
)

// money writes an amount of the receipt the way every page does (the one formatter):
// "$6,454.20", "€1,234.56"; without a currency, the number alone ("6,454.20").
func money(d decimal.Decimal, currency string) string {
	if currency == "" {
		return format.Group(d.StringFixed(2))
	}
	return format.Money(d, currency)
}

// check compares the receipt's arithmetic with itself: quantity × unit price = line total on
// every line, the lines = the subtotal, and lines + shipping + tax + fees (− discounts) = the
// total. Every mismatch is a warning naming the field; no figure is changed.
func check(r Receipt) []Warning {
	amt := func(d decimal.Decimal) string { return money(d, r.Currency) }
	var out []Warning
	if len(r.Items) == 0 {
		out = append(out, Warning{Item: -1, Field: "items", Message: "no bullion lines were found; add them by hand or try a clearer image"})
	}
	sum := decimal.Zero
	sumOK := true
	for i, it := range r.Items {
		for _, n := range it.notes {
			f, msg, _ := strings.Cut(n, "|")
			out = append(out, Warning{Item: i, Field: f, Message: msg})
		}
		switch {
		case it.UnitPrice.Valid && it.LineTotal.Valid:
			want := it.UnitPrice.Decimal.Mul(decimal.NewFromInt(it.Quantity))
			if !want.Equal(it.LineTotal.Decimal) {
				out = append(out, Warning{Item: i, Field: "line_total", Message: fmt.Sprintf("%d × %s = %s, but the line total reads %s", it.Quantity, amt(it.UnitPrice.Decimal), amt(want), amt(it.LineTotal.Decimal))})
			}
		case it.LineTotal.Valid:
			out = append(out, Warning{Item: i, Field: "unit_price", Message: fmt.Sprintf("no unit price on the line; %s ÷ %d is not a whole number of cents, so enter it", amt(it.LineTotal.Decimal), it.Quantity)})
		case it.UnitPrice.Valid:
			out = append(out, Warning{Item: i, Field: "line_total", Message: "no line total on the receipt to check the unit price against"})
		}
		if it.Metal == "" {
			out = append(out, Warning{Item: i, Field: "metal", Message: "the metal could not be read; choose it"})
		}
		if !it.WeightOz.IsPositive() {
			out = append(out, Warning{Item: i, Field: "weight_oz", Message: "the weight could not be read; enter the fine ounces per unit"})
		}
		if it.LineTotal.Valid {
			sum = sum.Add(it.LineTotal.Decimal)
		} else if it.UnitPrice.Valid {
			sum = sum.Add(it.UnitPrice.Decimal.Mul(decimal.NewFromInt(it.Quantity)))
		} else {
			sumOK = false
		}
	}
	if len(r.Items) > 0 && sumOK && r.Subtotal.Valid && !sum.Equal(r.Subtotal.Decimal) {
		out = append(out, Warning{Item: -1, Field: "subtotal", Message: fmt.Sprintf("the lines add up to %s, but the subtotal reads %s: a line may be missing or misread", amt(sum), amt(r.Subtotal.Decimal))})
	}
	if r.Total.Valid && len(r.Items) > 0 {
		base := sum
		if r.Subtotal.Valid {
			base = r.Subtotal.Decimal
		}
		if sumOK || r.Subtotal.Valid {
			want := base
			for _, x := range []decimal.NullDecimal{r.Shipping, r.Tax, r.Fees} {
				if x.Valid {
					want = want.Add(x.Decimal)
				}
			}
			if r.discount.Valid {
				want = want.Sub(r.discount.Decimal)
			}
			if !want.Equal(r.Total.Decimal) {
				out = append(out, Warning{Item: -1, Field: "total", Message: fmt.Sprintf("subtotal + shipping + tax + fees = %s, but the total reads %s", amt(want), amt(r.Total.Decimal))})
			}
		}
	}
	if r.OrderDate.IsZero() {
		out = append(out, Warning{Item: -1, Field: "order_date", Message: "no order date was found; enter it so the purchase is dated"})
	}
	return out
}
