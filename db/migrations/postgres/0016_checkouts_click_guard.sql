-- Stripe Checkout sessions this server opened, per member: a session id coming back on the
-- billing page is only looked up at Stripe when it is one of the member's own, and only until
-- Stripe has answered for it once (verified_at, with the status Stripe gave).
CREATE TABLE billing_checkouts (
    session_id  TEXT NOT NULL,
    user_id     BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at  TIMESTAMPTZ NOT NULL,
    verified_at TIMESTAMPTZ,
    status      TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (session_id, user_id)
);
CREATE INDEX billing_checkouts_user_idx ON billing_checkouts (user_id);

-- A click through to a dealer counts once per visitor, dealer, product and minute: visitor is
-- a keyed hash of who clicked (member, key or address), minute the minute since the epoch.
-- Rows from before have visitor '' and are left out of the unique index.
ALTER TABLE dealer_clicks ADD COLUMN visitor TEXT NOT NULL DEFAULT '';
ALTER TABLE dealer_clicks ADD COLUMN minute BIGINT NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX dealer_clicks_once_idx ON dealer_clicks (visitor, dealer, product, minute) WHERE visitor <> '';
