-- Accounts, sessions, API keys, holdings and shared rate-limit counters.
-- Money and ounces are TEXT so SQLite never turns them into floating point.
CREATE TABLE users (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    email         TEXT NOT NULL UNIQUE COLLATE NOCASE,
    password_hash TEXT NOT NULL,
    tier          TEXT NOT NULL DEFAULT 'free' CHECK (tier IN ('free', 'gold')),
    is_admin      INTEGER NOT NULL DEFAULT 0,
    created_at    TIMESTAMP NOT NULL,
    updated_at    TIMESTAMP NOT NULL
);

CREATE TABLE sessions (
    token  TEXT PRIMARY KEY,
    data   BLOB NOT NULL,
    expiry REAL NOT NULL
);
CREATE INDEX sessions_expiry_idx ON sessions (expiry);

CREATE TABLE api_keys (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    prefix       TEXT NOT NULL,
    key_hash     TEXT NOT NULL UNIQUE,
    created_at   TIMESTAMP NOT NULL,
    last_used_at TIMESTAMP,
    revoked_at   TIMESTAMP
);
CREATE INDEX api_keys_user_idx ON api_keys (user_id);

CREATE TABLE holdings (
    id             TEXT PRIMARY KEY,
    user_id        INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    metal          TEXT NOT NULL CHECK (metal IN ('gold', 'silver', 'platinum', 'palladium')),
    product_name   TEXT NOT NULL DEFAULT '',
    quantity       INTEGER NOT NULL CHECK (quantity > 0),
    weight_oz      TEXT NOT NULL,
    purchase_price TEXT NOT NULL,
    fees           TEXT NOT NULL DEFAULT '0',
    dealer         TEXT NOT NULL DEFAULT '',
    purchase_date  TEXT,
    notes          TEXT NOT NULL DEFAULT '',
    created_at     TIMESTAMP NOT NULL,
    updated_at     TIMESTAMP NOT NULL
);
CREATE INDEX holdings_user_idx ON holdings (user_id, purchase_date DESC, created_at DESC);

CREATE TABLE rate_limits (
    bucket       TEXT NOT NULL,
    window_start INTEGER NOT NULL,
    hits         INTEGER NOT NULL,
    PRIMARY KEY (bucket, window_start)
);
