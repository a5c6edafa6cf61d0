package kit

import (
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/format"
)

// Amounts in a currency other than the dollar (issue 25): money is rounded to the currency's
// ISO 4217 minor units (format.MinorUnits), so yen and won answer whole units; a price per
// weight keeps its source's precision (2 to 4 decimals, as PriceNum) in a currency with minor
// units and is whole units in one without. For USD both are exactly Money and PriceNum.

// MoneyIn renders an amount in currency at its minor units: 2 decimals, 0 for JPY, KRW, ISK.
func MoneyIn(d decimal.Decimal, currency string) Num {
	p := format.MinorUnits(currency)
	return Num{d.Round(p), p}
}

// PriceIn renders a price per weight in currency: PriceNum, or whole units in a currency
// without minor units (gold at ¥704,196 an ounce, not ¥704,196.4653).
func PriceIn(d decimal.Decimal, currency string) Num {
	if format.MinorUnits(currency) == 0 {
		return Num{d.Round(0), 0}
	}
	return PriceNum(d)
}

// MoneyOf is MoneyIn for currency, for NumOrNull.
func MoneyOf(currency string) func(decimal.Decimal) Num {
	return func(d decimal.Decimal) Num { return MoneyIn(d, currency) }
}

// PriceOf is PriceIn for currency, for NumOrNull.
func PriceOf(currency string) func(decimal.Decimal) Num {
	return func(d decimal.Decimal) Num { return PriceIn(d, currency) }
}
