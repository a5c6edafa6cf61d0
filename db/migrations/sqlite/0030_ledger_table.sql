-- The ledger table (issue 28) sorts every lot of a member by the cost basis left: this index
-- gives a page in that order without sorting all of them (equal costs fall back to the
-- default order, sorted within the few lots that share one).
CREATE INDEX holdings_user_cost_idx ON holdings (user_id, held_cost_int, held_cost_c);
