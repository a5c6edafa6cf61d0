-- Server secrets shared by every instance (the key that signs visitors' CSRF cookies), and
-- failed sign-in counters: only failures are counted, per address, per account and per
-- account from one address, so strangers cannot lock a member out by guessing.
CREATE TABLE app_secrets (
    name       TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE sign_in_failures (
    bucket       TEXT PRIMARY KEY,
    failures     INTEGER NOT NULL,
    first_failed BIGINT NOT NULL,
    last_failed  BIGINT NOT NULL
);
CREATE INDEX sign_in_failures_last_idx ON sign_in_failures (last_failed);
