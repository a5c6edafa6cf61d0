-- Daily and monthly closes per metal (embedded history, imports, live ticks rolled up) and
-- the last live quote per metal, which seeds the feed after a restart.
CREATE TABLE price_closes (
    metal       TEXT NOT NULL,
    granularity TEXT NOT NULL CHECK (granularity IN ('daily', 'monthly')),
    day         TEXT NOT NULL,
    price       TEXT NOT NULL,
    source      TEXT NOT NULL,
    updated_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (metal, granularity, day)
);

CREATE TABLE price_latest (
    metal      TEXT PRIMARY KEY,
    price      TEXT NOT NULL,
    prev_close TEXT NOT NULL DEFAULT '0',
    as_of      TIMESTAMP NOT NULL,
    source     TEXT NOT NULL
);
