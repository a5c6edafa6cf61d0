-- Billing (issue 17): who set each member's tier, their Stripe customer and subscriptions, the
-- Stripe events already handled (so a redelivery changes nothing), and every membership change
-- with its cause. Stripe only ever takes away Gold it granted itself (tier_source = 'stripe').
ALTER TABLE users ADD COLUMN tier_source TEXT NOT NULL DEFAULT 'signup' CHECK (tier_source IN ('signup', 'admin', 'stripe'));

-- One Stripe customer per member, created once and reused.
CREATE TABLE billing_customers (
    user_id     INTEGER PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    customer_id TEXT NOT NULL UNIQUE,
    created_at  TIMESTAMP NOT NULL
);

-- The last known state of each subscription. state_at is Stripe's time of that state (the
-- event's creation, or when Stripe answered a lookup): an older state never overwrites it.
CREATE TABLE billing_subscriptions (
    id                   TEXT PRIMARY KEY,
    user_id              INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    customer_id          TEXT NOT NULL DEFAULT '',
    status               TEXT NOT NULL,
    plan                 TEXT NOT NULL DEFAULT '',
    price_id             TEXT NOT NULL DEFAULT '',
    current_period_end   TIMESTAMP,
    cancel_at_period_end INTEGER NOT NULL DEFAULT 0,
    ended_at             TIMESTAMP,
    state_at             TIMESTAMP NOT NULL,
    updated_at           TIMESTAMP NOT NULL
);
CREATE INDEX billing_subscriptions_user_idx ON billing_subscriptions (user_id);
CREATE INDEX billing_subscriptions_status_idx ON billing_subscriptions (status);

-- Every verified Stripe event, by id: the primary key makes a redelivery (or the same event
-- reaching two instances at once) a no-op.
CREATE TABLE billing_events (
    id          TEXT PRIMARY KEY,
    type        TEXT NOT NULL,
    created_at  TIMESTAMP NOT NULL,
    received_at TIMESTAMP NOT NULL,
    user_id     INTEGER REFERENCES users (id) ON DELETE SET NULL,
    outcome     TEXT NOT NULL DEFAULT ''
);

-- Every change of a member's tier (or of who holds it), with its cause.
CREATE TABLE membership_history (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id   INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    at        TIMESTAMP NOT NULL,
    from_tier TEXT NOT NULL,
    to_tier   TEXT NOT NULL,
    source    TEXT NOT NULL,
    cause     TEXT NOT NULL
);
CREATE INDEX membership_history_user_idx ON membership_history (user_id, at);
