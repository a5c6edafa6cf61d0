-- The ledger days each ledger revision changed (0027 logs only the earliest), as YYYY-MM-DD
-- joined by commas, when a write changed at most a few dozen days (NULL when it changed more,
-- or was logged before this column): a reader that kept the ledger's days re-reads just
-- those days, not every day after the earliest.
ALTER TABLE ledger_changes ADD COLUMN days TEXT;
