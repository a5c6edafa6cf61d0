-- Portfolio aggregation and sales.
--
-- Money and ounces are TEXT here, and SUM() over TEXT would go through floating point, so each
-- holding also carries exact scaled-integer copies of its totals, maintained by the store on
-- every write. A total is split into a whole part (floor) and a fraction scaled to its
-- precision, so sums stay exact and cannot overflow for realistic stacks: at the validation
-- maxima (1,000,000 units × 100,000 oz × $100,000,000) a lot costs at most 1e14 whole dollars,
-- and SUM over int64 holds 92,000 such lots; every other column has far more headroom.
--   bought:  oz_int + oz_e8/1e8 fine oz, cost_int + cost_c/100 dollars (quantity × price + fees),
--            fees_c cents of fees
--   held:    held_oz_int + held_oz_e8/1e8 fine oz and held_cost_int + held_cost_c/100 dollars
--            still held after sales (the remaining cost basis)
ALTER TABLE holdings ADD COLUMN sold_quantity INTEGER NOT NULL DEFAULT 0 CHECK (sold_quantity >= 0);
ALTER TABLE holdings ADD COLUMN oz_int INTEGER NOT NULL DEFAULT 0;
ALTER TABLE holdings ADD COLUMN oz_e8 INTEGER NOT NULL DEFAULT 0;
ALTER TABLE holdings ADD COLUMN cost_int INTEGER NOT NULL DEFAULT 0;
ALTER TABLE holdings ADD COLUMN cost_c INTEGER NOT NULL DEFAULT 0;
ALTER TABLE holdings ADD COLUMN fees_c INTEGER NOT NULL DEFAULT 0;
ALTER TABLE holdings ADD COLUMN held_oz_int INTEGER NOT NULL DEFAULT 0;
ALTER TABLE holdings ADD COLUMN held_oz_e8 INTEGER NOT NULL DEFAULT 0;
ALTER TABLE holdings ADD COLUMN held_cost_int INTEGER NOT NULL DEFAULT 0;
ALTER TABLE holdings ADD COLUMN held_cost_c INTEGER NOT NULL DEFAULT 0;

-- Backfill existing rows exactly, in integer arithmetic on the stored decimal text (the store
-- writes plain digits with at most 8 decimals for weights and 2 for money, never exponents).
-- Splitting every factor into whole and fractional parts keeps each product inside int64.
UPDATE holdings SET
    oz_int        = p.q * p.wi + (p.q * p.wf) / 100000000,
    oz_e8         = (p.q * p.wf) % 100000000,
    cost_int      = (p.q * (p.pi * 100 + p.pc) + p.fi * 100 + p.fc) / 100,
    cost_c        = (p.q * (p.pi * 100 + p.pc) + p.fi * 100 + p.fc) % 100,
    fees_c        = p.fi * 100 + p.fc,
    held_oz_int   = p.q * p.wi + (p.q * p.wf) / 100000000,
    held_oz_e8    = (p.q * p.wf) % 100000000,
    held_cost_int = (p.q * (p.pi * 100 + p.pc) + p.fi * 100 + p.fc) / 100,
    held_cost_c   = (p.q * (p.pi * 100 + p.pc) + p.fi * 100 + p.fc) % 100
FROM (
    SELECT id, quantity AS q,
        CAST(CASE WHEN instr(weight_oz, '.') > 0 THEN substr(weight_oz, 1, instr(weight_oz, '.') - 1) ELSE weight_oz END AS INTEGER) AS wi,
        CASE WHEN instr(weight_oz, '.') > 0 THEN CAST(substr(substr(weight_oz, instr(weight_oz, '.') + 1) || '00000000', 1, 8) AS INTEGER) ELSE 0 END AS wf,
        CAST(CASE WHEN instr(purchase_price, '.') > 0 THEN substr(purchase_price, 1, instr(purchase_price, '.') - 1) ELSE purchase_price END AS INTEGER) AS pi,
        CASE WHEN instr(purchase_price, '.') > 0 THEN CAST(substr(substr(purchase_price, instr(purchase_price, '.') + 1) || '00', 1, 2) AS INTEGER) ELSE 0 END AS pc,
        CAST(CASE WHEN instr(fees, '.') > 0 THEN substr(fees, 1, instr(fees, '.') - 1) ELSE fees END AS INTEGER) AS fi,
        CASE WHEN instr(fees, '.') > 0 THEN CAST(substr(substr(fees, instr(fees, '.') + 1) || '00', 1, 2) AS INTEGER) ELSE 0 END AS fc
    FROM holdings
) AS p
WHERE holdings.id = p.id;

-- Per-metal aggregation reads one user's rows from this index alone (it holds every column the
-- portfolio sums), which halves its cost on SQLite.
CREATE INDEX holdings_portfolio_idx ON holdings (user_id, metal, purchase_date, created_at, updated_at, quantity, sold_quantity,
    held_oz_int, held_oz_e8, held_cost_int, held_cost_c, oz_int, oz_e8, cost_int, cost_c, fees_c);

-- Sales of part or all of a holding. The holding cannot be deleted while sales refer to it.
CREATE TABLE sales (
    id             TEXT PRIMARY KEY,
    user_id        INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    holding_id     TEXT NOT NULL REFERENCES holdings (id),
    metal          TEXT NOT NULL CHECK (metal IN ('gold', 'silver', 'platinum', 'palladium')),
    quantity       INTEGER NOT NULL CHECK (quantity > 0),
    oz             TEXT NOT NULL,
    price_per_unit TEXT NOT NULL,
    fees           TEXT NOT NULL DEFAULT '0',
    sold_on        TEXT NOT NULL,
    proceeds       TEXT NOT NULL,
    cost_basis     TEXT NOT NULL,
    realized_pl    TEXT NOT NULL,
    -- exact integer copies for aggregation, split as on holdings (pl_int is the floor, so
    -- a loss of 2.30 is -3 and 70 cents)
    oz_int         INTEGER NOT NULL,
    oz_e8          INTEGER NOT NULL,
    cost_int       INTEGER NOT NULL,
    cost_c         INTEGER NOT NULL,
    pl_int         INTEGER NOT NULL,
    pl_c           INTEGER NOT NULL,
    created_at     TIMESTAMP NOT NULL
);
CREATE INDEX sales_user_idx ON sales (user_id, sold_on DESC, created_at DESC);
CREATE INDEX sales_holding_idx ON sales (holding_id);
