-- Where a stack is kept (issue 28): a member's named storage locations, each lot's place and
-- tags, the transfers between places, and documents (photos, receipts, certificates) attached
-- to a lot. On PostgreSQL a document's bytes are a row of document_blobs, so every instance
-- sees them.

CREATE TABLE locations (
    id            TEXT PRIMARY KEY,
    user_id       BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    kind          TEXT NOT NULL CHECK (kind IN ('home', 'bank_box', 'vault', 'dealer', 'ira')),
    insured_value TEXT,
    notes         TEXT NOT NULL DEFAULT '',
    created_at    TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL
);
CREATE INDEX locations_user_idx ON locations (user_id, name);

-- location_id NULL is unassigned; tags are the lot's tags joined by commas (no tag holds one).
ALTER TABLE holdings ADD COLUMN location_id TEXT REFERENCES locations (id);
ALTER TABLE holdings ADD COLUMN tags TEXT NOT NULL DEFAULT '';
CREATE INDEX holdings_location_idx ON holdings (location_id) WHERE location_id IS NOT NULL;

CREATE TABLE holding_transfers (
    id               BIGSERIAL PRIMARY KEY,
    user_id          BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    holding_id       TEXT NOT NULL REFERENCES holdings (id) ON DELETE CASCADE,
    from_location_id TEXT,
    to_location_id   TEXT,
    moved_on         DATE NOT NULL,
    note             TEXT NOT NULL DEFAULT '',
    created_at       TIMESTAMPTZ NOT NULL
);
CREATE INDEX holding_transfers_holding_idx ON holding_transfers (holding_id, id);

CREATE TABLE documents (
    id           TEXT PRIMARY KEY,
    user_id      BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    holding_id   TEXT NOT NULL REFERENCES holdings (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    content_type TEXT NOT NULL,
    size         BIGINT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL
);
CREATE INDEX documents_holding_idx ON documents (holding_id, created_at);
CREATE INDEX documents_user_idx ON documents (user_id);

CREATE TABLE document_blobs (
    document_id TEXT PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
    user_id     BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    body        BYTEA NOT NULL
);
