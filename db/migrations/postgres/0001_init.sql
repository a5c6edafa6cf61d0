-- Accounts, sessions, API keys, holdings and shared rate-limit counters.
CREATE TABLE users (
    id            BIGSERIAL PRIMARY KEY,
    email         TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    tier          TEXT NOT NULL DEFAULT 'free' CHECK (tier IN ('free', 'gold')),
    is_admin      BOOLEAN NOT NULL DEFAULT FALSE,
    created_at    TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX users_email_idx ON users (lower(email));

-- The scs session table, as scs/postgresstore expects it.
CREATE TABLE sessions (
    token  TEXT PRIMARY KEY,
    data   BYTEA NOT NULL,
    expiry TIMESTAMPTZ NOT NULL
);
CREATE INDEX sessions_expiry_idx ON sessions (expiry);

CREATE TABLE api_keys (
    id           BIGSERIAL PRIMARY KEY,
    user_id      BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    prefix       TEXT NOT NULL,
    key_hash     TEXT NOT NULL UNIQUE,
    created_at   TIMESTAMPTZ NOT NULL,
    last_used_at TIMESTAMPTZ,
    revoked_at   TIMESTAMPTZ
);
CREATE INDEX api_keys_user_idx ON api_keys (user_id);

CREATE TABLE holdings (
    id             TEXT PRIMARY KEY,
    user_id        BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    metal          TEXT NOT NULL CHECK (metal IN ('gold', 'silver', 'platinum', 'palladium')),
    product_name   TEXT NOT NULL DEFAULT '',
    quantity       BIGINT NOT NULL CHECK (quantity > 0),
    weight_oz      NUMERIC(20, 8) NOT NULL,
    purchase_price NUMERIC(20, 4) NOT NULL,
    fees           NUMERIC(20, 4) NOT NULL DEFAULT 0,
    dealer         TEXT NOT NULL DEFAULT '',
    purchase_date  DATE,
    notes          TEXT NOT NULL DEFAULT '',
    created_at     TIMESTAMPTZ NOT NULL,
    updated_at     TIMESTAMPTZ NOT NULL
);
CREATE INDEX holdings_user_idx ON holdings (user_id, purchase_date DESC, created_at DESC);

CREATE UNLOGGED TABLE rate_limits (
    bucket       TEXT NOT NULL,
    window_start BIGINT NOT NULL,
    hits         INTEGER NOT NULL,
    PRIMARY KEY (bucket, window_start)
);
