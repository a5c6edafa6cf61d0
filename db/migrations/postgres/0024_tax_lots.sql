-- Tax lots (issue 27): a disposal of units of one product across lots is one row here and
-- its slices are sales rows (one per lot) carrying its id, so every realized figure that sums
-- sales keeps counting them. A sale without a disposal is a per-lot sale (method specific).
CREATE TABLE disposals (
    id             TEXT PRIMARY KEY,
    user_id        BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    metal          TEXT NOT NULL CHECK (metal IN ('gold', 'silver', 'platinum', 'palladium')),
    product_name   TEXT NOT NULL,
    kind           TEXT NOT NULL CHECK (kind IN ('sold', 'traded', 'gifted', 'lost')),
    method         TEXT NOT NULL CHECK (method IN ('fifo', 'lifo', 'hifo', 'specific', 'average')),
    quantity       BIGINT NOT NULL CHECK (quantity > 0),
    price_per_unit NUMERIC(20, 4) NOT NULL,
    fees           NUMERIC(20, 4) NOT NULL,
    sold_on        DATE NOT NULL,
    -- received names the lot a trade became (kind traded); it is not a reference so the lot
    -- can be edited or removed on its own.
    received       TEXT NOT NULL DEFAULT '',
    created_at     TIMESTAMPTZ NOT NULL
);
CREATE INDEX disposals_user_idx ON disposals (user_id, sold_on);

ALTER TABLE sales ADD COLUMN disposal_id TEXT REFERENCES disposals (id);
CREATE INDEX sales_disposal_idx ON sales (disposal_id);

-- How a member's units are matched to lots by default, and whose tax rules the gains
-- report labels (not tax advice).
ALTER TABLE users ADD COLUMN lot_method TEXT NOT NULL DEFAULT 'fifo' CHECK (lot_method IN ('fifo', 'lifo', 'hifo', 'specific', 'average'));
ALTER TABLE users ADD COLUMN tax_jurisdiction TEXT NOT NULL DEFAULT 'none' CHECK (tax_jurisdiction IN ('us', 'uk', 'de', 'none'));
