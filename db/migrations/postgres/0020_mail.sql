-- Mail (issue 29): an outbox of messages written in the transaction that decided them and
-- drained by the leader; single-use tokens for password reset and address verification
-- (stored as SHA-256 hashes); and each member's mail settings.

-- dedupe_key names what a message is about ('alert:<notification id>', 'brief:<brief id>') so
-- a firing or a brief is mailed at most once whoever enqueues it; NULL for one-off mails.
-- body is cleared once the message is sent or given up on (a reset link must not linger).
CREATE TABLE mail_outbox (
    id          BIGSERIAL PRIMARY KEY,
    user_id     BIGINT REFERENCES users (id) ON DELETE CASCADE,
    kind        TEXT NOT NULL,
    dedupe_key  TEXT UNIQUE,
    to_addr     TEXT NOT NULL,
    subject     TEXT NOT NULL,
    body        TEXT NOT NULL,
    list        TEXT NOT NULL DEFAULT '',
    status      TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
    attempts    INTEGER NOT NULL DEFAULT 0,
    next_at     BIGINT NOT NULL,
    lease_until BIGINT NOT NULL DEFAULT 0,
    last_error  TEXT NOT NULL DEFAULT '',
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);
CREATE INDEX mail_outbox_due_idx ON mail_outbox (next_at) WHERE status = 'pending';
CREATE INDEX mail_outbox_user_idx ON mail_outbox (user_id);

-- purpose is 'reset' or 'verify'; email is the address the token was sent to (a verification
-- proves that address, and is void once the account's address changes).
CREATE TABLE mail_tokens (
    id         BIGSERIAL PRIMARY KEY,
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    purpose    TEXT NOT NULL CHECK (purpose IN ('reset', 'verify')),
    email      TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at    BIGINT
);
CREATE INDEX mail_tokens_user_idx ON mail_tokens (user_id, purpose);

-- verified_email is the address the member proved (mail other than security notices goes only
-- to it while it is still the account's address); alerts_since and brief_since are when the
-- member opted in (0 = off), so nothing from before is mailed.
CREATE TABLE mail_prefs (
    user_id        BIGINT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    verified_email TEXT NOT NULL DEFAULT '',
    alerts_since   BIGINT NOT NULL DEFAULT 0,
    brief_since    BIGINT NOT NULL DEFAULT 0,
    updated_at     BIGINT NOT NULL
);
