-- Lots in the currency they were paid in (issue 25): a holding's prices and fees are in
-- purchase_currency (existing lots were all dollars), and a sale's price and fees in its
-- currency. weight_amount and weight_unit keep the weight per unit exactly as entered
-- (100 g stays 100 g; weight_oz is its troy-ounce equivalent at 8 decimals); a lot entered in
-- ounces has weight_amount NULL.
ALTER TABLE holdings ADD COLUMN purchase_currency TEXT NOT NULL DEFAULT 'USD';
ALTER TABLE holdings ADD COLUMN weight_amount TEXT;
ALTER TABLE holdings ADD COLUMN weight_unit TEXT NOT NULL DEFAULT 'oz' CHECK (weight_unit IN ('oz', 'g', 'kg', 'tola'));
ALTER TABLE sales ADD COLUMN currency TEXT NOT NULL DEFAULT 'USD';
-- Valuation in another currency sums cost per purchase currency and day.
CREATE INDEX holdings_user_currency ON holdings (user_id, purchase_currency, metal, purchase_date);
CREATE INDEX sales_user_currency ON sales (user_id, currency, metal, sold_on);
