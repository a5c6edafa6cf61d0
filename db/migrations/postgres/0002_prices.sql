-- Daily and monthly closes per metal (embedded history, imports, live ticks rolled up) and
-- the last live quote per metal, which seeds the feed after a restart.
CREATE TABLE price_closes (
    metal       TEXT NOT NULL,
    granularity TEXT NOT NULL CHECK (granularity IN ('daily', 'monthly')),
    day         DATE NOT NULL,
    price       NUMERIC(20, 4) NOT NULL,
    source      TEXT NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (metal, granularity, day)
);

CREATE TABLE price_latest (
    metal      TEXT PRIMARY KEY,
    price      NUMERIC(20, 4) NOT NULL,
    prev_close NUMERIC(20, 4) NOT NULL DEFAULT 0,
    as_of      TIMESTAMPTZ NOT NULL,
    source     TEXT NOT NULL
);
