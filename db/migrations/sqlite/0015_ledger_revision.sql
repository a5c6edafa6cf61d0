-- A member's ledger revision: raised in the same transaction as every write that changes
-- their position ledger (0014), so a chart computed from the ledger can be kept and reused
-- until the revision moves.
ALTER TABLE users ADD COLUMN ledger_rev INTEGER NOT NULL DEFAULT 0;
