-- Dealer prices. The nine built-in dealers and the product catalogue live in code; these tables
-- hold what `ounce dealers import` adds or edits (dealers, products, product-page listings and
-- JSON price feeds), the latest quote per dealer and product, every observation with the spot
-- it was compared with (premium history), and affiliate clicks. Dealers and products are
-- referred to by slug/id without foreign keys because built-in ones have no row.
CREATE TABLE dealers (
    slug                   TEXT PRIMARY KEY,
    name                   TEXT NOT NULL,
    site                   TEXT NOT NULL,
    affiliate_url_template TEXT NOT NULL,
    updated_at             TIMESTAMPTZ NOT NULL
);

CREATE TABLE dealer_products (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    metal      TEXT NOT NULL CHECK (metal IN ('gold', 'silver', 'platinum', 'palladium')),
    weight_oz  NUMERIC(20, 8) NOT NULL CHECK (weight_oz > 0),
    form       TEXT NOT NULL CHECK (form IN ('coin', 'bar', 'round', 'junk')),
    purity     NUMERIC(6, 5) NOT NULL CHECK (purity > 0 AND purity <= 1),
    updated_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE dealer_listings (
    dealer     TEXT NOT NULL,
    product    TEXT NOT NULL,
    url        TEXT NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
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
    updated_at     TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (dealer, url)
);

CREATE TABLE dealer_quotes (
    dealer     TEXT NOT NULL,
    product    TEXT NOT NULL,
    price      NUMERIC(20, 4) NOT NULL CHECK (price > 0),
    in_stock   BOOLEAN NOT NULL,
    url        TEXT NOT NULL,
    -- quantity tiers [{"min":1,"max":19,"price":"34.99"}] as JSON text
    tiers      TEXT NOT NULL DEFAULT '[]',
    source     TEXT NOT NULL CHECK (source IN ('page', 'feed')),
    fetched_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (dealer, product)
);
CREATE INDEX dealer_quotes_fetched_idx ON dealer_quotes (fetched_at);

CREATE TABLE dealer_quote_history (
    id          BIGSERIAL PRIMARY KEY,
    dealer      TEXT NOT NULL,
    product     TEXT NOT NULL,
    day         DATE NOT NULL,
    observed_at TIMESTAMPTZ NOT NULL,
    price       NUMERIC(20, 4) NOT NULL,
    spot        NUMERIC(20, 4) NOT NULL,
    premium_pct NUMERIC(12, 4) NOT NULL
);
CREATE INDEX dealer_quote_history_product_idx ON dealer_quote_history (product, day);

CREATE TABLE dealer_clicks (
    id         BIGSERIAL PRIMARY KEY,
    dealer     TEXT NOT NULL,
    product    TEXT NOT NULL,
    user_id    BIGINT REFERENCES users (id) ON DELETE SET NULL,
    referrer   TEXT NOT NULL DEFAULT '',
    via        TEXT NOT NULL CHECK (via IN ('api', 'web')),
    clicked_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX dealer_clicks_time_idx ON dealer_clicks (clicked_at);
