-- Dealer prices. The nine built-in dealers and the product catalogue live in code; these tables
-- hold what `ounce dealers import` adds or edits (dealers, products, product-page listings and
-- JSON price feeds), the latest quote per dealer and product, every observation with the spot
-- it was compared with (premium history), and affiliate clicks. Dealers and products are
-- referred to by slug/id without foreign keys because built-in ones have no row.
-- Money and ounces are TEXT so SQLite never turns them into floating point.
CREATE TABLE dealers (
    slug                   TEXT PRIMARY KEY,
    name                   TEXT NOT NULL,
    site                   TEXT NOT NULL,
    affiliate_url_template TEXT NOT NULL,
    updated_at             TIMESTAMP NOT NULL
);

CREATE TABLE dealer_products (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    metal      TEXT NOT NULL CHECK (metal IN ('gold', 'silver', 'platinum', 'palladium')),
    weight_oz  TEXT NOT NULL,
    form       TEXT NOT NULL CHECK (form IN ('coin', 'bar', 'round', 'junk')),
    purity     TEXT NOT NULL,
    updated_at TIMESTAMP NOT NULL
);

CREATE TABLE dealer_listings (
    dealer     TEXT NOT NULL,
    product    TEXT NOT NULL,
    url        TEXT NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (dealer, product)
);

CREATE TABLE dealer_feeds (
    dealer         TEXT NOT NULL,
    url            TEXT NOT NULL,
    items_path     TEXT NOT NULL DEFAULT '',
    sku_field      TEXT NOT NULL,
    price_field    TEXT NOT NULL,
    in_stock_field TEXT NOT NULL DEFAULT '',
    -- {"<sku>": "<product id>"} as JSON text
    skus           TEXT NOT NULL,
    updated_at     TIMESTAMP NOT NULL,
    PRIMARY KEY (dealer, url)
);

CREATE TABLE dealer_quotes (
    dealer     TEXT NOT NULL,
    product    TEXT NOT NULL,
    price      TEXT NOT NULL,
    in_stock   INTEGER NOT NULL,
    url        TEXT NOT NULL,
    -- quantity tiers [{"min":1,"max":19,"price":"34.99"}] as JSON text
    tiers      TEXT NOT NULL DEFAULT '[]',
    source     TEXT NOT NULL CHECK (source IN ('page', 'feed')),
    fetched_at TIMESTAMP NOT NULL,
    PRIMARY KEY (dealer, product)
);
CREATE INDEX dealer_quotes_fetched_idx ON dealer_quotes (fetched_at);

CREATE TABLE dealer_quote_history (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    dealer      TEXT NOT NULL,
    product     TEXT NOT NULL,
    day         TEXT NOT NULL,
    observed_at TIMESTAMP NOT NULL,
    price       TEXT NOT NULL,
    spot        TEXT NOT NULL,
    premium_pct TEXT NOT NULL
);
CREATE INDEX dealer_quote_history_product_idx ON dealer_quote_history (product, day);

CREATE TABLE dealer_clicks (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    dealer     TEXT NOT NULL,
    product    TEXT NOT NULL,
    user_id    INTEGER REFERENCES users (id) ON DELETE SET NULL,
    referrer   TEXT NOT NULL DEFAULT '',
    via        TEXT NOT NULL CHECK (via IN ('api', 'web')),
    clicked_at TIMESTAMP NOT NULL
);
CREATE INDEX dealer_clicks_time_idx ON dealer_clicks (clicked_at);
