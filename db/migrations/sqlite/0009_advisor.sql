-- The advisor: one daily brief per member and day (the day in the member's time zone), chat
-- conversations with their messages, and the count of chat messages per member and day for
-- the tier quota. A brief's content is kept as one JSON document: it is written once, read
-- whole and never queried inside.
CREATE TABLE advisor_briefs (
    id           TEXT PRIMARY KEY,
    user_id      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    day          TEXT NOT NULL,
    generated_at TIMESTAMP NOT NULL,
    writer       TEXT NOT NULL,
    content      TEXT NOT NULL
);
CREATE UNIQUE INDEX advisor_briefs_user_day_idx ON advisor_briefs (user_id, day);

CREATE TABLE advisor_conversations (
    id         TEXT PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    title      TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE INDEX advisor_conversations_user_idx ON advisor_conversations (user_id, updated_at);

-- seq orders a conversation's messages as they were stored. facts and tool_calls are JSON.
CREATE TABLE advisor_messages (
    conversation_id TEXT NOT NULL REFERENCES advisor_conversations (id) ON DELETE CASCADE,
    seq             INTEGER NOT NULL,
    role            TEXT NOT NULL,
    content         TEXT NOT NULL,
    facts           TEXT NOT NULL,
    tool_calls      TEXT NOT NULL,
    writer          TEXT NOT NULL,
    created_at      TIMESTAMP NOT NULL,
    PRIMARY KEY (conversation_id, seq)
);

-- Chat messages asked per member and day (member's zone); old days are pruned.
CREATE TABLE advisor_usage (
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    day     TEXT NOT NULL,
    used    INTEGER NOT NULL,
    PRIMARY KEY (user_id, day)
);
