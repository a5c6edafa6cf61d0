-- Per member, the earliest ledger day each ledger revision (0015) changed: the performance
-- engine keeps the days it read and, when the revision moves, re-reads only the days on or
-- after the earliest one changed since. A revision raised without a row here (e.g. a lot's
-- currency changed) makes the reader read everything again. The store keeps the newest few
-- hundred rows per member.
CREATE TABLE ledger_changes (
    user_id  INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    rev      INTEGER NOT NULL,
    from_day TEXT NOT NULL,
    PRIMARY KEY (user_id, rev)
) WITHOUT ROWID;
