-- Receipt scans counted for the scan limits (free: a few per 30 days; Gold: an hourly cap).
-- Only the time of each scan is kept: the file and what was read from it never are.
CREATE TABLE receipt_scans (
    id         BIGSERIAL PRIMARY KEY,
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    scanned_at BIGINT NOT NULL
);
CREATE INDEX receipt_scans_user_idx ON receipt_scans (user_id, scanned_at);
