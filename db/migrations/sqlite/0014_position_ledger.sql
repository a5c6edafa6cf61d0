-- Per-member running sums of holdings and sales, kept by the store in the same transaction as
-- every write to either table (create, edit, delete, sell, undo a sale, import, a refreshed
-- spot at purchase; deleting the account cascades). Reading them costs a few rows where
-- aggregating the lots cost one index entry per lot: analytics reads position_totals, and the
-- value-over-time chart reads the days of its range from position_days.
--
-- position_days has one row per metal and day with anything on it: the purchases of that day
-- (an undated holding counts on the UTC day it was recorded) and the sales made that day. The
-- columns are sums of the exact integer copies on holdings and sales (see 0004):
--   purchases, dated, lots: holdings bought that day, of them dated, of them with units held
--   oz_*, cost_*, fees_c:   what they cost (fees included) and the fine ounces bought
--   held_*:                 what of them is still held after sales (ounces, cost basis)
--   paid_*, ref_*:          the premium's two sides over the lots with a spot at purchase:
--                           cost_int and cost_c - fees_c, and ref_int/ref_e8 (see 0007)
--   sales, sold_*, pl_*:    the sales made that day, their ounces, cost basis and realized P/L
-- A row whose purchases and sales both fall to zero is deleted. position_totals holds the same
-- sums per metal over every day.
CREATE TABLE position_days (
    user_id       INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    metal         TEXT NOT NULL,
    day           TEXT NOT NULL,
    purchases     INTEGER NOT NULL DEFAULT 0,
    dated         INTEGER NOT NULL DEFAULT 0,
    lots          INTEGER NOT NULL DEFAULT 0,
    oz_int        INTEGER NOT NULL DEFAULT 0,
    oz_e8         INTEGER NOT NULL DEFAULT 0,
    cost_int      INTEGER NOT NULL DEFAULT 0,
    cost_c        INTEGER NOT NULL DEFAULT 0,
    fees_c        INTEGER NOT NULL DEFAULT 0,
    held_oz_int   INTEGER NOT NULL DEFAULT 0,
    held_oz_e8    INTEGER NOT NULL DEFAULT 0,
    held_cost_int INTEGER NOT NULL DEFAULT 0,
    held_cost_c   INTEGER NOT NULL DEFAULT 0,
    paid_int      INTEGER NOT NULL DEFAULT 0,
    paid_c        INTEGER NOT NULL DEFAULT 0,
    ref_int       INTEGER NOT NULL DEFAULT 0,
    ref_e8        INTEGER NOT NULL DEFAULT 0,
    sales         INTEGER NOT NULL DEFAULT 0,
    sold_oz_int   INTEGER NOT NULL DEFAULT 0,
    sold_oz_e8    INTEGER NOT NULL DEFAULT 0,
    sold_cost_int INTEGER NOT NULL DEFAULT 0,
    sold_cost_c   INTEGER NOT NULL DEFAULT 0,
    pl_int        INTEGER NOT NULL DEFAULT 0,
    pl_c          INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, metal, day)
) WITHOUT ROWID;

CREATE TABLE position_totals (
    user_id       INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    metal         TEXT NOT NULL,
    purchases     INTEGER NOT NULL DEFAULT 0,
    dated         INTEGER NOT NULL DEFAULT 0,
    lots          INTEGER NOT NULL DEFAULT 0,
    oz_int        INTEGER NOT NULL DEFAULT 0,
    oz_e8         INTEGER NOT NULL DEFAULT 0,
    cost_int      INTEGER NOT NULL DEFAULT 0,
    cost_c        INTEGER NOT NULL DEFAULT 0,
    fees_c        INTEGER NOT NULL DEFAULT 0,
    held_oz_int   INTEGER NOT NULL DEFAULT 0,
    held_oz_e8    INTEGER NOT NULL DEFAULT 0,
    held_cost_int INTEGER NOT NULL DEFAULT 0,
    held_cost_c   INTEGER NOT NULL DEFAULT 0,
    paid_int      INTEGER NOT NULL DEFAULT 0,
    paid_c        INTEGER NOT NULL DEFAULT 0,
    ref_int       INTEGER NOT NULL DEFAULT 0,
    ref_e8        INTEGER NOT NULL DEFAULT 0,
    sales         INTEGER NOT NULL DEFAULT 0,
    sold_oz_int   INTEGER NOT NULL DEFAULT 0,
    sold_oz_e8    INTEGER NOT NULL DEFAULT 0,
    sold_cost_int INTEGER NOT NULL DEFAULT 0,
    sold_cost_c   INTEGER NOT NULL DEFAULT 0,
    pl_int        INTEGER NOT NULL DEFAULT 0,
    pl_c          INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, metal)
) WITHOUT ROWID;

-- Backfill from the rows already stored. The store writes created_at as UTC text
-- ('2006-01-02 15:04:05…'), so its first ten characters are the UTC day.
INSERT INTO position_days (user_id, metal, day, purchases, dated, lots, oz_int, oz_e8, cost_int, cost_c, fees_c,
    held_oz_int, held_oz_e8, held_cost_int, held_cost_c, paid_int, paid_c, ref_int, ref_e8,
    sales, sold_oz_int, sold_oz_e8, sold_cost_int, sold_cost_c, pl_int, pl_c)
SELECT user_id, metal, day, SUM(purchases), SUM(dated), SUM(lots), SUM(oz_int), SUM(oz_e8), SUM(cost_int), SUM(cost_c), SUM(fees_c),
    SUM(held_oz_int), SUM(held_oz_e8), SUM(held_cost_int), SUM(held_cost_c), SUM(paid_int), SUM(paid_c), SUM(ref_int), SUM(ref_e8),
    SUM(sales), SUM(sold_oz_int), SUM(sold_oz_e8), SUM(sold_cost_int), SUM(sold_cost_c), SUM(pl_int), SUM(pl_c)
FROM (
    SELECT user_id, metal, COALESCE(purchase_date, substr(created_at, 1, 10)) AS day, 1 AS purchases,
        CASE WHEN purchase_date IS NULL THEN 0 ELSE 1 END AS dated, CASE WHEN sold_quantity < quantity THEN 1 ELSE 0 END AS lots,
        oz_int, oz_e8, cost_int, cost_c, fees_c, held_oz_int, held_oz_e8, held_cost_int, held_cost_c,
        CASE WHEN ref_int > 0 OR ref_e8 > 0 THEN cost_int ELSE 0 END AS paid_int,
        CASE WHEN ref_int > 0 OR ref_e8 > 0 THEN cost_c - fees_c ELSE 0 END AS paid_c, ref_int, ref_e8,
        0 AS sales, 0 AS sold_oz_int, 0 AS sold_oz_e8, 0 AS sold_cost_int, 0 AS sold_cost_c, 0 AS pl_int, 0 AS pl_c
    FROM holdings
    UNION ALL
    SELECT user_id, metal, sold_on, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        1, oz_int, oz_e8, cost_int, cost_c, pl_int, pl_c
    FROM sales
) AS x
GROUP BY user_id, metal, day;

INSERT INTO position_totals (user_id, metal, purchases, dated, lots, oz_int, oz_e8, cost_int, cost_c, fees_c,
    held_oz_int, held_oz_e8, held_cost_int, held_cost_c, paid_int, paid_c, ref_int, ref_e8,
    sales, sold_oz_int, sold_oz_e8, sold_cost_int, sold_cost_c, pl_int, pl_c)
SELECT user_id, metal, SUM(purchases), SUM(dated), SUM(lots), SUM(oz_int), SUM(oz_e8), SUM(cost_int), SUM(cost_c), SUM(fees_c),
    SUM(held_oz_int), SUM(held_oz_e8), SUM(held_cost_int), SUM(held_cost_c), SUM(paid_int), SUM(paid_c), SUM(ref_int), SUM(ref_e8),
    SUM(sales), SUM(sold_oz_int), SUM(sold_oz_e8), SUM(sold_cost_int), SUM(sold_cost_c), SUM(pl_int), SUM(pl_c)
FROM position_days
GROUP BY user_id, metal;
