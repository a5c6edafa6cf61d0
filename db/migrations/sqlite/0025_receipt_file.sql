-- The file of a receipt scan, kept until the member confirms the scan so it can be attached to
-- the lots the confirmation creates (issue 28), then deleted; unconfirmed files are deleted
-- after a day (db.ReceiptFileRetention), with their scan, and with the account.
CREATE TABLE receipt_files (
    scan_id    INTEGER PRIMARY KEY REFERENCES receipt_scans (id) ON DELETE CASCADE,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    body       BLOB NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX receipt_files_user_idx ON receipt_files (user_id, created_at);
CREATE INDEX receipt_files_created_idx ON receipt_files (created_at);
