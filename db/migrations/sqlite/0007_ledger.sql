-- The ledger: each lot keeps the spot price of its purchase day (the close of that day, or the
-- last close before it), so premiums are summed from the lots instead of pricing every purchase
-- against the history on each request. NULL means no close is known for the day (undated lots,
-- days before the history or well after its end). ref_int + ref_e8/1e8 is the exact-to-1e-8
-- value of the lot's ounces at that spot (zero for gifts and lots without a spot), summed like
-- the other integer copies in 0004.
ALTER TABLE holdings ADD COLUMN spot_at_purchase TEXT;
ALTER TABLE holdings ADD COLUMN ref_int INTEGER NOT NULL DEFAULT 0;
ALTER TABLE holdings ADD COLUMN ref_e8 INTEGER NOT NULL DEFAULT 0;

-- Changing the password (or signing out everywhere) bumps this; sessions made under an older
-- value are no longer honoured.
ALTER TABLE users ADD COLUMN session_gen INTEGER NOT NULL DEFAULT 0;

-- The aggregation index gains the reference columns, so analytics still reads the index alone.
DROP INDEX holdings_portfolio_idx;
CREATE INDEX holdings_portfolio_idx ON holdings (user_id, metal, purchase_date, created_at, updated_at, quantity, sold_quantity,
    held_oz_int, held_oz_e8, held_cost_int, held_cost_c, oz_int, oz_e8, cost_int, cost_c, fees_c, ref_int, ref_e8);
