-- Price alerts and push delivery (issue 18). Times are unix milliseconds (BIGINT) so both
-- engines compare them the same way. Prices are fixed-point "units" of 1/10000 USD per troy
-- ounce (BIGINT): exact, and comparable in an index on SQLite as on PostgreSQL.

-- Where a member is told: an Expo push token (ios|android), or a Web Push subscription (web:
-- token is the subscription's endpoint, p256dh and auth its keys). A token belongs to one
-- member at a time; registering it again moves it to the caller.
CREATE TABLE push_devices (
    id         BIGSERIAL PRIMARY KEY,
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    platform   TEXT NOT NULL CHECK (platform IN ('ios', 'android', 'web')),
    token      TEXT NOT NULL UNIQUE,
    p256dh     TEXT NOT NULL DEFAULT '',
    auth       TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL
);
CREATE INDEX push_devices_user_idx ON push_devices (user_id, id);

-- A price alert. armed says whether the next crossing fires it; arm_units is the price at (or
-- past) which a disarmed alert arms again: one unit short of the target when created while the
-- condition already holds (it waits for a crossing), the target moved back by 0.5 % after a
-- firing (rearm_units). Firing is one conditional UPDATE of an armed row.
CREATE TABLE price_alerts (
    id                BIGSERIAL PRIMARY KEY,
    user_id           BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    metal             TEXT NOT NULL,
    direction         TEXT NOT NULL CHECK (direction IN ('above', 'below')),
    target_units      BIGINT NOT NULL CHECK (target_units > 0),
    rearm_units       BIGINT NOT NULL,
    arm_units         BIGINT NOT NULL,
    repeat            TEXT NOT NULL CHECK (repeat IN ('once', 'rearm')),
    enabled           BOOLEAN NOT NULL,
    armed             BOOLEAN NOT NULL,
    last_triggered_at BIGINT,
    fired_count       BIGINT NOT NULL DEFAULT 0,
    created_at        BIGINT NOT NULL,
    updated_at        BIGINT NOT NULL
);
CREATE INDEX price_alerts_user_idx ON price_alerts (user_id, id);
-- A tick reads only the alerts it crosses: armed ones whose target it reached, and disarmed
-- ones whose arming price it passed.
CREATE INDEX price_alerts_fire_idx ON price_alerts (metal, direction, target_units) WHERE enabled AND armed;
CREATE INDEX price_alerts_arm_idx ON price_alerts (metal, direction, arm_units) WHERE enabled AND NOT armed;

-- The in-app notification centre: one row per firing, written in the firing's transaction.
CREATE TABLE alert_notifications (
    id           BIGSERIAL PRIMARY KEY,
    user_id      BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    alert_id     BIGINT REFERENCES price_alerts (id) ON DELETE SET NULL,
    metal        TEXT NOT NULL,
    direction    TEXT NOT NULL,
    target_units BIGINT NOT NULL,
    price_units  BIGINT NOT NULL,
    price_as_of  BIGINT NOT NULL,
    fired_at     BIGINT NOT NULL,
    read_at      BIGINT
);
CREATE INDEX alert_notifications_user_idx ON alert_notifications (user_id, id);
CREATE INDEX alert_notifications_unread_idx ON alert_notifications (user_id) WHERE read_at IS NULL;
CREATE INDEX alert_notifications_alert_idx ON alert_notifications (alert_id, id);

-- The outbox: one row per notification and device, written in the firing's transaction, so a
-- crash after firing loses nothing. status: pending (due at next_at), ticketed (Expo accepted
-- it; its receipt is due at next_at), sent, failed. lease_until keeps a claimed row from
-- being claimed twice while its send is in flight.
CREATE TABLE push_outbox (
    id              BIGSERIAL PRIMARY KEY,
    notification_id BIGINT NOT NULL REFERENCES alert_notifications (id) ON DELETE CASCADE,
    device_id       BIGINT NOT NULL REFERENCES push_devices (id) ON DELETE CASCADE,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'ticketed', 'sent', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_at         BIGINT NOT NULL,
    lease_until     BIGINT NOT NULL DEFAULT 0,
    ticket_id       TEXT NOT NULL DEFAULT '',
    last_error      TEXT NOT NULL DEFAULT '',
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);
CREATE INDEX push_outbox_due_idx ON push_outbox (next_at) WHERE status IN ('pending', 'ticketed');
CREATE INDEX push_outbox_device_idx ON push_outbox (device_id);
CREATE INDEX push_outbox_notification_idx ON push_outbox (notification_id);

-- Every delivery outcome, kept when the device or outbox row is gone.
CREATE TABLE push_deliveries (
    id              BIGSERIAL PRIMARY KEY,
    outbox_id       BIGINT NOT NULL,
    notification_id BIGINT NOT NULL,
    device_id       BIGINT NOT NULL,
    platform        TEXT NOT NULL,
    attempt         INTEGER NOT NULL,
    outcome         TEXT NOT NULL,
    detail          TEXT NOT NULL DEFAULT '',
    at              BIGINT NOT NULL
);
CREATE INDEX push_deliveries_outbox_idx ON push_deliveries (outbox_id, id);
CREATE INDEX push_deliveries_at_idx ON push_deliveries (at);

-- The installation's VAPID key pair for Web Push, made by the first instance that starts.
CREATE TABLE push_vapid_keys (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    public_key  TEXT NOT NULL,
    private_key TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);

-- Every firing leaves a dead row version behind; vacuum the alerts often rather than after a
-- fifth of a large table has changed.
ALTER TABLE price_alerts SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000);
