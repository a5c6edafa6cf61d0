-- Price alerts in any currency and weight unit (issue 25): an alert's target is stored as
-- entered, in target_units of 1/10000 of its currency per its unit; a firing's notification
-- keeps the currency and unit its prices are in. Existing alerts are US dollars per troy ounce.
ALTER TABLE price_alerts ADD COLUMN currency TEXT NOT NULL DEFAULT 'USD';
ALTER TABLE price_alerts ADD COLUMN unit TEXT NOT NULL DEFAULT 'oz' CHECK (unit IN ('oz', 'g', 'kg', 'tola'));
ALTER TABLE alert_notifications ADD COLUMN currency TEXT NOT NULL DEFAULT 'USD';
ALTER TABLE alert_notifications ADD COLUMN unit TEXT NOT NULL DEFAULT 'oz';

-- A tick is converted once per currency and unit and reads only the alerts of that quote it
-- crosses.
DROP INDEX price_alerts_fire_idx;
DROP INDEX price_alerts_arm_idx;
CREATE INDEX price_alerts_fire_idx ON price_alerts (metal, currency, unit, direction, target_units) WHERE enabled = 1 AND armed = 1;
CREATE INDEX price_alerts_arm_idx ON price_alerts (metal, currency, unit, direction, arm_units) WHERE enabled = 1 AND armed = 0;

-- The quotes (metal, currency, unit) any alert has been set in, so a tick knows which
-- conversions to make without scanning the alerts. Written with the alert; never pruned (a
-- quote without alerts costs a tick two empty index probes).
CREATE TABLE price_alert_quotes (
    metal    TEXT NOT NULL,
    currency TEXT NOT NULL,
    unit     TEXT NOT NULL,
    PRIMARY KEY (metal, currency, unit)
);
INSERT INTO price_alert_quotes (metal, currency, unit) SELECT DISTINCT metal, currency, unit FROM price_alerts;
