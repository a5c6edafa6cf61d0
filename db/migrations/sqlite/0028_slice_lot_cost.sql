-- A disposal across lots bought in several currencies (issue 27 with issue 25): each slice is
-- recorded in the disposal's currency (price, fees, proceeds, cost basis at the ECB rate of the
-- lot's purchase day, realized P/L), and keeps the units' cost in its lot's own currency
-- exactly in lot_cost (with its integer parts, as cost_int/cost_c). NULL means the slice is in
-- its lot's currency and lot_cost is cost_basis (every sale recorded before).
ALTER TABLE sales ADD COLUMN lot_cost TEXT;
ALTER TABLE sales ADD COLUMN lot_cost_int INTEGER;
ALTER TABLE sales ADD COLUMN lot_cost_c INTEGER;
