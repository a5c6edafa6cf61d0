-- Portfolio aggregation and sales.
--
-- PostgreSQL could SUM the NUMERIC columns directly, but SQLite cannot do so exactly, so both
-- engines share one code path over exact scaled-integer copies of each holding's totals,
-- maintained by the store on every write. A total is split into a whole part (floor) and a
-- fraction scaled to its precision:
--   bought:  oz_int + oz_e8/1e8 fine oz, cost_int + cost_c/100 dollars (quantity × price + fees),
--            fees_c cents of fees
--   held:    held_oz_int + held_oz_e8/1e8 fine oz and held_cost_int + held_cost_c/100 dollars
--            still held after sales (the remaining cost basis)
-- SUM(bigint) is NUMERIC here, so sums cannot overflow at all.
ALTER TABLE holdings
    ADD COLUMN sold_quantity BIGINT NOT NULL DEFAULT 0 CHECK (sold_quantity >= 0),
    ADD COLUMN oz_int BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN oz_e8 BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN cost_int BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN cost_c BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN fees_c BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN held_oz_int BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN held_oz_e8 BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN held_cost_int BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN held_cost_c BIGINT NOT NULL DEFAULT 0;

-- Backfill existing rows exactly: NUMERIC arithmetic is exact.
UPDATE holdings SET
    oz_int        = floor(p.oz)::bigint,
    oz_e8         = ((p.oz - floor(p.oz)) * 100000000)::bigint,
    cost_int      = floor(p.cost)::bigint,
    cost_c        = ((p.cost - floor(p.cost)) * 100)::bigint,
    fees_c        = (holdings.fees * 100)::bigint,
    held_oz_int   = floor(p.oz)::bigint,
    held_oz_e8    = ((p.oz - floor(p.oz)) * 100000000)::bigint,
    held_cost_int = floor(p.cost)::bigint,
    held_cost_c   = ((p.cost - floor(p.cost)) * 100)::bigint
FROM (SELECT id, quantity * weight_oz AS oz, quantity * purchase_price + fees AS cost FROM holdings) AS p
WHERE holdings.id = p.id;

-- Per-metal aggregation reads one user's rows from this index (it includes every column the
-- portfolio sums, so a vacuumed table answers from the index alone).
CREATE INDEX holdings_portfolio_idx ON holdings (user_id, metal, purchase_date) INCLUDE (created_at, updated_at, quantity, sold_quantity,
    held_oz_int, held_oz_e8, held_cost_int, held_cost_c, oz_int, oz_e8, cost_int, cost_c, fees_c);

-- Sales of part or all of a holding. The holding cannot be deleted while sales refer to it.
CREATE TABLE sales (
    id             TEXT PRIMARY KEY,
    user_id        BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    holding_id     TEXT NOT NULL REFERENCES holdings (id),
    metal          TEXT NOT NULL CHECK (metal IN ('gold', 'silver', 'platinum', 'palladium')),
    quantity       BIGINT NOT NULL CHECK (quantity > 0),
    oz             NUMERIC(24, 8) NOT NULL,
    price_per_unit NUMERIC(20, 4) NOT NULL,
    fees           NUMERIC(20, 4) NOT NULL DEFAULT 0,
    sold_on        DATE NOT NULL,
    proceeds       NUMERIC(24, 4) NOT NULL,
    cost_basis     NUMERIC(24, 4) NOT NULL,
    realized_pl    NUMERIC(24, 4) NOT NULL,
    -- exact integer copies for aggregation, split as on holdings (pl_int is the floor)
    oz_int         BIGINT NOT NULL,
    oz_e8          BIGINT NOT NULL,
    cost_int       BIGINT NOT NULL,
    cost_c         BIGINT NOT NULL,
    pl_int         BIGINT NOT NULL,
    pl_c           BIGINT NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL
);
CREATE INDEX sales_user_idx ON sales (user_id, sold_on DESC, created_at DESC);
CREATE INDEX sales_holding_idx ON sales (holding_id);
