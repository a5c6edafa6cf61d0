-- The revision of the stored price history as `ounce prices import` leaves it. The import runs
-- in a process of its own; it bumps the revision after storing its closes, and a running
-- server that sees the revision move (a notification on PostgreSQL, a one-row read on SQLite)
-- re-reads the history, so imported closes reach it without a restart.
CREATE TABLE price_revision (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    revision BIGINT NOT NULL
);
INSERT INTO price_revision (id, revision) VALUES (1, 0);
