package db

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// Mail (migration 0020). Messages are rows of mail_outbox written in the transaction that
// decided them (a reset token and its mail, a password reset and the notice of it) and
// drained by the leader with retries; times are unix milliseconds. A dedupe key makes the
// mail of an alert firing or a daily brief exist at most once, whoever enqueues it.

// Mail outbox statuses.
const (
	MailPending = "pending"
	MailSent    = "sent"
	MailFailed  = "failed"
)

// Mail token purposes.
const (
	TokenReset  = "reset"
	TokenVerify = "verify"
)

// OutMail is a message to enqueue.
type OutMail struct {
	// UserID is the member it concerns (0 for none).
	UserID int64
	Kind   string
	// DedupeKey, when set, makes the message exist at most once.
	DedupeKey string
	To        string
	Subject   string
	Body      string
	// List is the mailing a one-click unsubscribe stops ("alerts", "brief"), or empty for
	// account mail, which cannot be unsubscribed from.
	List string
	// Token, when set, is the single-use token the message carries (a reset or confirmation
	// link): stored with the message in its transaction, voiding older unused tokens of the
	// member and purpose, so the link never exists without its mail or the mail without it.
	Token *MailToken
}

// MailItem is an outbox row.
type MailItem struct {
	ID        int64          `db:"id"`
	UserID    sql.NullInt64  `db:"user_id"`
	Kind      string         `db:"kind"`
	DedupeKey sql.NullString `db:"dedupe_key"`
	To        string         `db:"to_addr"`
	Subject   string         `db:"subject"`
	Body      string         `db:"body"`
	List      string         `db:"list"`
	Status    string         `db:"status"`
	Attempts  int            `db:"attempts"`
	NextAt    int64          `db:"next_at"`
	LastError string         `db:"last_error"`
	CreatedAt int64          `db:"created_at"`
}

const mailCols = `id, user_id, kind, dedupe_key, to_addr, subject, body, list, status, attempts, next_at, last_error, created_at`

// insertMail adds m to the outbox in tx, due at once, with its token if it carries one; a
// dedupe key already present adds nothing. It reports whether a row was added.
func (s *Store) insertMail(ctx context.Context, tx *sqlx.Tx, m OutMail, now int64) (bool, error) {
	if m.Token != nil {
		if err := insertToken(ctx, tx, *m.Token, now); err != nil {
			return false, err
		}
	}
	var uid, key any
	if m.UserID != 0 {
		uid = m.UserID
	}
	if m.DedupeKey != "" {
		key = m.DedupeKey
	}
	res, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO mail_outbox (user_id, kind, dedupe_key, to_addr, subject, body, list, status, next_at, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?) ON CONFLICT (dedupe_key) DO NOTHING`),
		uid, m.Kind, key, m.To, m.Subject, m.Body, m.List, now, now, now)
	if err != nil {
		return false, fmt.Errorf("enqueue mail: %w", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// insertMails adds every message in tx.
func (s *Store) insertMails(ctx context.Context, tx *sqlx.Tx, ms []OutMail) error {
	now := s.now().UnixMilli()
	for _, m := range ms {
		if _, err := s.insertMail(ctx, tx, m, now); err != nil {
			return err
		}
	}
	return nil
}

// QueueMail adds one message to the outbox on its own.
func (s *Store) QueueMail(ctx context.Context, m OutMail) error {
	return s.WithTx(ctx, func(tx *sqlx.Tx) error {
		_, err := s.insertMail(ctx, tx, m, s.now().UnixMilli())
		return err
	})
}

// MailToken is a single-use token as stored: only its hash.
type MailToken struct {
	UserID    int64
	Purpose   string
	Email     string
	TokenHash string
	ExpiresAt int64
}

// CreateMailToken stores t and the message carrying it in one transaction. Older unused
// tokens of the same purpose are voided, so only the latest link works.
func (s *Store) CreateMailToken(ctx context.Context, t MailToken, m OutMail) error {
	m.Token = &t
	return s.QueueMail(ctx, m)
}

// insertToken stores t in tx, voiding the member's older unused tokens of its purpose.
func insertToken(ctx context.Context, tx *sqlx.Tx, t MailToken, now int64) error {
	if _, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE mail_tokens SET used_at = ? WHERE user_id = ? AND purpose = ? AND used_at IS NULL`),
		now, t.UserID, t.Purpose); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO mail_tokens (user_id, purpose, email, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)`),
		t.UserID, t.Purpose, NormalizeEmail(t.Email), t.TokenHash, now, t.ExpiresAt); err != nil {
		return fmt.Errorf("store token: %w", err)
	}
	return nil
}

// useToken spends the unexpired, unused token of that purpose and hash in tx, returning the
// member and address it was issued to; any other token is ErrNotFound. The conditional
// UPDATE is what makes a token work once, however many requests race with it.
func useToken(ctx context.Context, tx *sqlx.Tx, purpose, hash string, now int64) (userID int64, email string, err error) {
	var row struct {
		UserID int64  `db:"user_id"`
		Email  string `db:"email"`
	}
	err = tx.GetContext(ctx, &row, tx.Rebind(`UPDATE mail_tokens SET used_at = ? WHERE token_hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?
		RETURNING user_id, email`), now, hash, purpose, now)
	if err != nil {
		return 0, "", notFound(err)
	}
	return row.UserID, row.Email, nil
}

// ResetPassword spends a reset token and sets the new password hash, moving the session
// generation on (every session of the member is signed out), and enqueues the notice that
// notice makes for the account, all in one transaction. A spent, expired or unknown token,
// or one sent to an address the account no longer has, is ErrNotFound.
func (s *Store) ResetPassword(ctx context.Context, tokenHash, passwordHash string, notice func(User) OutMail) (User, error) {
	now := s.now()
	var u User
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		uid, email, err := useToken(ctx, tx, TokenReset, tokenHash, now.UnixMilli())
		if err != nil {
			return err
		}
		if err := tx.GetContext(ctx, &u, tx.Rebind(`UPDATE users SET password_hash = ?, session_gen = session_gen + 1, updated_at = ?
			WHERE id = ? AND lower(email) = ? RETURNING `+userCols), passwordHash, now, uid, email); err != nil {
			return notFound(err)
		}
		if _, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE mail_tokens SET used_at = ? WHERE user_id = ? AND purpose = ? AND used_at IS NULL`),
			now.UnixMilli(), uid, TokenReset); err != nil {
			return err
		}
		if notice != nil {
			_, err = s.insertMail(ctx, tx, notice(u), now.UnixMilli())
		}
		return err
	})
	return u, err
}

// VerifyEmail spends a verification token and records its address as the member's proven
// one, if it is still the account's address; otherwise ErrNotFound.
func (s *Store) VerifyEmail(ctx context.Context, tokenHash string) (User, error) {
	now := s.now().UnixMilli()
	var u User
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		uid, email, err := useToken(ctx, tx, TokenVerify, tokenHash, now)
		if err != nil {
			return err
		}
		if err := tx.GetContext(ctx, &u, tx.Rebind(`SELECT `+userCols+` FROM users WHERE id = ? AND lower(email) = ?`), uid, email); err != nil {
			return notFound(err)
		}
		_, err = tx.ExecContext(ctx, tx.Rebind(`INSERT INTO mail_prefs (user_id, verified_email, updated_at) VALUES (?, ?, ?)
			ON CONFLICT (user_id) DO UPDATE SET verified_email = excluded.verified_email, updated_at = excluded.updated_at`), uid, email, now)
		return err
	})
	return u, err
}

// MailPrefs are a member's mail settings.
type MailPrefs struct {
	UserID        int64  `db:"user_id"`
	VerifiedEmail string `db:"verified_email"`
	// AlertsSince and BriefSince are when the member opted in (unix ms), 0 when off.
	AlertsSince int64 `db:"alerts_since"`
	BriefSince  int64 `db:"brief_since"`
}

// MailPrefsOf reads a member's mail settings; a member who never set any has the zero value.
func (s *Store) MailPrefsOf(ctx context.Context, userID int64) (MailPrefs, error) {
	p := MailPrefs{UserID: userID}
	err := s.db.GetContext(ctx, &p, s.rebind(`SELECT user_id, verified_email, alerts_since, brief_since FROM mail_prefs WHERE user_id = ?`), userID)
	if err == sql.ErrNoRows {
		return p, nil
	}
	return p, err
}

// Mailing lists a member may opt in to and unsubscribe from.
const (
	ListAlerts = "alerts"
	ListBrief  = "brief"
)

// SetMailList turns a member's mailing on (since now) or off. Turning on a list already on
// keeps its start, so nothing already mailed is mailed again and nothing is skipped.
func (s *Store) SetMailList(ctx context.Context, userID int64, list string, on bool) error {
	col := map[string]string{ListAlerts: "alerts_since", ListBrief: "brief_since"}[list]
	if col == "" {
		return fmt.Errorf("unknown mailing list %q", list)
	}
	now := s.now().UnixMilli()
	if !on {
		// An update only: unsubscribing an account that is gone, or never opted in, is done.
		_, err := s.db.ExecContext(ctx, s.rebind(`UPDATE mail_prefs SET `+col+` = 0, updated_at = ? WHERE user_id = ?`), now, userID)
		return err
	}
	_, err := s.db.ExecContext(ctx, s.rebind(`INSERT INTO mail_prefs (user_id, `+col+`, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (user_id) DO UPDATE SET `+col+` = CASE WHEN mail_prefs.`+col+` > 0 THEN mail_prefs.`+col+` ELSE excluded.`+col+` END,
		updated_at = excluded.updated_at`), userID, now, now)
	return err
}

// MailTokensSince counts the tokens of that purpose issued to the member since (unix ms).
func (s *Store) MailTokensSince(ctx context.Context, userID int64, purpose string, since int64) (int, error) {
	var n int
	err := s.db.GetContext(ctx, &n, s.rebind(`SELECT count(*) FROM mail_tokens WHERE user_id = ? AND purpose = ? AND created_at >= ?`), userID, purpose, since)
	return n, err
}

// MailAlertRow is an alert firing due to be mailed, with its member's address.
type MailAlertRow struct {
	AlertNotification
	Email string `db:"email"`
}

// AlertsToMail lists the firings, since from (unix ms), of members who want alerts by mail
// at their proven address, fired after they opted in and not mailed yet.
func (s *Store) AlertsToMail(ctx context.Context, from int64, limit int) ([]MailAlertRow, error) {
	var out []MailAlertRow
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT n.id, n.user_id, n.alert_id, n.metal, n.direction, n.target_units, n.price_units,
			n.price_as_of, n.fired_at, n.read_at, n.currency, n.unit, u.email
		FROM mail_prefs p JOIN users u ON u.id = p.user_id AND lower(u.email) = p.verified_email
		JOIN alert_notifications n ON n.user_id = p.user_id AND n.fired_at >= p.alerts_since AND n.fired_at >= ?
		WHERE p.alerts_since > 0
		AND NOT EXISTS (SELECT 1 FROM mail_outbox o WHERE o.dedupe_key = 'alert:' || CAST(n.id AS TEXT))
		ORDER BY n.id LIMIT ?`), from, limit)
	return out, err
}

// MailBriefRow is a daily brief due to be mailed.
type MailBriefRow struct {
	ID          string    `db:"id"`
	UserID      int64     `db:"user_id"`
	Email       string    `db:"email"`
	Content     string    `db:"content"`
	GeneratedAt time.Time `db:"generated_at"`
}

// BriefsToMail lists the briefs generated since from of members who want the brief by mail
// at their proven address, generated after they opted in and not mailed yet.
func (s *Store) BriefsToMail(ctx context.Context, from time.Time, limit int) ([]MailBriefRow, error) {
	var rows []MailBriefRow
	var prefs []MailPrefs
	// The opt-in time is unix ms and generated_at a timestamp: compared in Go, not SQL, so
	// both engines agree.
	err := s.db.SelectContext(ctx, &rows, s.rebind(`SELECT b.id, b.user_id, u.email, b.content, b.generated_at
		FROM mail_prefs p JOIN users u ON u.id = p.user_id AND lower(u.email) = p.verified_email
		JOIN advisor_briefs b ON b.user_id = p.user_id AND b.generated_at >= ?
		WHERE p.brief_since > 0
		AND NOT EXISTS (SELECT 1 FROM mail_outbox o WHERE o.dedupe_key = 'brief:' || b.id)
		ORDER BY b.generated_at LIMIT ?`), from.UTC(), limit)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	if err := s.db.SelectContext(ctx, &prefs, `SELECT user_id, verified_email, alerts_since, brief_since FROM mail_prefs WHERE brief_since > 0`); err != nil {
		return nil, err
	}
	since := map[int64]int64{}
	for _, p := range prefs {
		since[p.UserID] = p.BriefSince
	}
	out := rows[:0]
	for _, r := range rows {
		if r.GeneratedAt.UnixMilli() >= since[r.UserID] {
			out = append(out, r)
		}
	}
	return out, nil
}

// EnqueueMails adds messages to the outbox in one transaction (duplicates by dedupe key add
// nothing) and returns how many were added.
func (s *Store) EnqueueMails(ctx context.Context, ms []OutMail) (int, error) {
	n := 0
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		now := s.now().UnixMilli()
		for _, m := range ms {
			added, err := s.insertMail(ctx, tx, m, now)
			if err != nil {
				return err
			}
			if added {
				n++
			}
		}
		return nil
	})
	return n, err
}

// ClaimMail leases up to limit outbox rows due at now for lease milliseconds, so no other
// worker takes them meanwhile; rows of a worker that died are claimed again after the lease.
func (s *Store) ClaimMail(ctx context.Context, now, lease int64, limit int) ([]MailItem, error) {
	return claimRows[MailItem](ctx, s, "mail_outbox", "status = 'pending'", `SELECT `+mailCols+` FROM mail_outbox WHERE id IN (?) ORDER BY id`, now, lease, limit)
}

// FinishMail records what became of a claimed row and releases its lease. A row no longer
// pending (sent, or given up on) keeps no body: a reset link must not outlive its delivery.
func (s *Store) FinishMail(ctx context.Context, id int64, status string, attempts int, nextAt int64, lastError string) error {
	_, err := s.db.ExecContext(ctx, s.rebind(`UPDATE mail_outbox SET status = ?, attempts = ?, next_at = ?, last_error = ?, lease_until = 0,
		body = CASE WHEN CAST(? AS TEXT) = 'pending' THEN body ELSE '' END, updated_at = ? WHERE id = ?`),
		status, attempts, nextAt, lastError, status, s.now().UnixMilli(), id)
	return err
}

// MailRows lists the outbox rows about a member, oldest first (tests and the admin view).
func (s *Store) MailRows(ctx context.Context, userID int64) ([]MailItem, error) {
	var out []MailItem
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT `+mailCols+` FROM mail_outbox WHERE user_id = ? ORDER BY id`), userID)
	return out, err
}
