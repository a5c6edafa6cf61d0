-- Market intelligence: news items and the health of the feeds they come from, Stack Signal
-- articles, and COMEX warehouse (Vault Watch) reports with their depository rows.
-- Metals lists are stored as ',gold,silver,' so one LIKE finds a metal on both engines.
CREATE TABLE news_items (
    id           TEXT PRIMARY KEY,
    url          TEXT NOT NULL UNIQUE,
    title        TEXT NOT NULL,
    source       TEXT NOT NULL,
    summary      TEXT NOT NULL DEFAULT '',
    published_at TIMESTAMPTZ NOT NULL,
    fetched_at   TIMESTAMPTZ NOT NULL,
    category     TEXT NOT NULL,
    metals       TEXT NOT NULL DEFAULT '',
    relevance    INTEGER NOT NULL DEFAULT 0,
    analysis     TEXT NOT NULL DEFAULT '',
    demo         BOOLEAN NOT NULL DEFAULT FALSE,
    feed_url     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX news_items_published_idx ON news_items (demo, published_at DESC);
CREATE INDEX news_items_category_idx ON news_items (category, published_at DESC);

CREATE TABLE news_feeds (
    url           TEXT PRIMARY KEY,
    name          TEXT NOT NULL DEFAULT '',
    etag          TEXT NOT NULL DEFAULT '',
    last_modified TEXT NOT NULL DEFAULT '',
    last_ok       TIMESTAMPTZ,
    last_attempt  TIMESTAMPTZ,
    last_error    TEXT NOT NULL DEFAULT ''
);

CREATE TABLE articles (
    id               TEXT PRIMARY KEY,
    slug             TEXT NOT NULL UNIQUE,
    title            TEXT NOT NULL,
    summary          TEXT NOT NULL,
    commentary       TEXT NOT NULL,
    category         TEXT NOT NULL,
    metals           TEXT NOT NULL DEFAULT '',
    sources          TEXT NOT NULL DEFAULT '[]',
    price_gold       NUMERIC(20, 4),
    price_silver     NUMERIC(20, 4),
    price_platinum   NUMERIC(20, 4),
    price_palladium  NUMERIC(20, 4),
    published_at     TIMESTAMPTZ NOT NULL,
    published_day    DATE NOT NULL,
    is_synthesis     BOOLEAN NOT NULL DEFAULT FALSE,
    demo             BOOLEAN NOT NULL DEFAULT FALSE,
    writer           TEXT NOT NULL,
    fallback_reason  TEXT NOT NULL DEFAULT '',
    view_count       BIGINT NOT NULL DEFAULT 0,
    like_count       BIGINT NOT NULL DEFAULT 0,
    comment_count    BIGINT NOT NULL DEFAULT 0,
    created_at       TIMESTAMPTZ NOT NULL
);
CREATE INDEX articles_published_idx ON articles (demo, published_at DESC);
CREATE INDEX articles_category_idx ON articles (category, published_at DESC);
-- At most one synthesis a day (one demo synthesis may sit beside it until real news arrives).
CREATE UNIQUE INDEX articles_synthesis_day_idx ON articles (published_day, demo) WHERE is_synthesis;

CREATE TABLE vault_reports (
    metal         TEXT NOT NULL CHECK (metal IN ('gold', 'silver', 'platinum', 'palladium')),
    activity_date DATE NOT NULL,
    report_date   DATE,
    registered    NUMERIC(20, 3) NOT NULL,
    pledged       NUMERIC(20, 3),
    eligible      NUMERIC(20, 3) NOT NULL,
    source        TEXT NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (metal, activity_date)
);

CREATE TABLE vault_depositories (
    metal         TEXT NOT NULL,
    activity_date DATE NOT NULL,
    position      INTEGER NOT NULL,
    name          TEXT NOT NULL,
    registered    NUMERIC(20, 3) NOT NULL,
    pledged       NUMERIC(20, 3) NOT NULL DEFAULT 0,
    eligible      NUMERIC(20, 3) NOT NULL,
    total         NUMERIC(20, 3) NOT NULL,
    PRIMARY KEY (metal, activity_date, position),
    FOREIGN KEY (metal, activity_date) REFERENCES vault_reports (metal, activity_date) ON DELETE CASCADE
);

CREATE TABLE vault_open_interest (
    metal      TEXT NOT NULL CHECK (metal IN ('gold', 'silver', 'platinum', 'palladium')),
    day        DATE NOT NULL,
    contracts  BIGINT NOT NULL CHECK (contracts > 0),
    updated_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (metal, day)
);
