package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"
)

// Price alerts and their push delivery (migration 0013). Prices are fixed-point units of
// 1/10000 USD (PriceUnit), times unix milliseconds. A tick fires an alert with one conditional
// UPDATE of an armed row, and writes its notification and outbox rows in that transaction, so
// a firing is told exactly once however many instances evaluate the same tick.

// ErrLimit means a per-member cap (devices, alerts) is reached.
var ErrLimit = errors.New("limit reached")

// PushDevice is a registered Expo push token or Web Push subscription.
type PushDevice struct {
	ID        int64  `db:"id"`
	UserID    int64  `db:"user_id"`
	Platform  string `db:"platform"`
	Token     string `db:"token"`
	P256dh    string `db:"p256dh"`
	Auth      string `db:"auth"`
	CreatedAt int64  `db:"created_at"`
}

// PriceAlert is one member's alert.
type PriceAlert struct {
	ID              int64         `db:"id"`
	UserID          int64         `db:"user_id"`
	Metal           string        `db:"metal"`
	Direction       string        `db:"direction"`
	TargetUnits     int64         `db:"target_units"`
	RearmUnits      int64         `db:"rearm_units"`
	ArmUnits        int64         `db:"arm_units"`
	Repeat          string        `db:"repeat"`
	Enabled         bool          `db:"enabled"`
	Armed           bool          `db:"armed"`
	LastTriggeredAt sql.NullInt64 `db:"last_triggered_at"`
	FiredCount      int64         `db:"fired_count"`
	CreatedAt       int64         `db:"created_at"`
	UpdatedAt       int64         `db:"updated_at"`
}

// AlertNotification is one firing, as the notification centre lists it.
type AlertNotification struct {
	ID          int64         `db:"id"`
	UserID      int64         `db:"user_id"`
	AlertID     sql.NullInt64 `db:"alert_id"`
	Metal       string        `db:"metal"`
	Direction   string        `db:"direction"`
	TargetUnits int64         `db:"target_units"`
	PriceUnits  int64         `db:"price_units"`
	PriceAsOf   int64         `db:"price_as_of"`
	FiredAt     int64         `db:"fired_at"`
	ReadAt      sql.NullInt64 `db:"read_at"`
}

// OutboxItem is a claimed outbox row with what sending it needs.
type OutboxItem struct {
	ID             int64  `db:"id"`
	NotificationID int64  `db:"notification_id"`
	DeviceID       int64  `db:"device_id"`
	Status         string `db:"status"`
	Attempts       int    `db:"attempts"`
	TicketID       string `db:"ticket_id"`
	CreatedAt      int64  `db:"created_at"`
	Platform       string `db:"platform"`
	Token          string `db:"token"`
	P256dh         string `db:"p256dh"`
	Auth           string `db:"auth"`
	AlertNotification
}

// Outbox statuses.
const (
	OutboxPending  = "pending"
	OutboxTicketed = "ticketed"
	OutboxSent     = "sent"
	OutboxFailed   = "failed"
)

// lockUser serialises a member's capped inserts (PostgreSQL; SQLite transactions already
// hold the write lock).
func (s *Store) lockUser(ctx context.Context, tx *sqlx.Tx, userID int64) error {
	if s.Engine != Postgres {
		return nil
	}
	var id int64
	return notFound(tx.GetContext(ctx, &id, `SELECT id FROM users WHERE id = $1 FOR NO KEY UPDATE`, userID))
}

// RegisterDevice stores d for d.UserID, moving the token from whoever held it. A member who
// already has max devices (not counting this token) gets ErrLimit.
func (s *Store) RegisterDevice(ctx context.Context, d PushDevice, max int) (PushDevice, error) {
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if err := s.lockUser(ctx, tx, d.UserID); err != nil {
			return err
		}
		var n int
		if err := tx.GetContext(ctx, &n, tx.Rebind(`SELECT count(*) FROM push_devices WHERE user_id = ? AND token <> ?`), d.UserID, d.Token); err != nil {
			return err
		}
		if n >= max {
			return ErrLimit
		}
		return tx.GetContext(ctx, &d.ID, tx.Rebind(`INSERT INTO push_devices (user_id, platform, token, p256dh, auth, created_at) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (token) DO UPDATE SET user_id = excluded.user_id, platform = excluded.platform, p256dh = excluded.p256dh,
			auth = excluded.auth, created_at = excluded.created_at RETURNING id`),
			d.UserID, d.Platform, d.Token, d.P256dh, d.Auth, d.CreatedAt)
	})
	return d, err
}

// DeleteDevice removes the user's own device with that token; another's is ErrNotFound.
func (s *Store) DeleteDevice(ctx context.Context, userID int64, token string) error {
	res, err := s.db.ExecContext(ctx, s.rebind(`DELETE FROM push_devices WHERE user_id = ? AND token = ?`), userID, token)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// RemoveDevice deletes a device the push service says is gone; its pending outbox rows go too.
func (s *Store) RemoveDevice(ctx context.Context, id int64) error {
	_, err := s.db.ExecContext(ctx, s.rebind(`DELETE FROM push_devices WHERE id = ?`), id)
	return err
}

// Devices lists the user's devices, oldest first.
func (s *Store) Devices(ctx context.Context, userID int64) ([]PushDevice, error) {
	var out []PushDevice
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT id, user_id, platform, token, p256dh, auth, created_at FROM push_devices WHERE user_id = ? ORDER BY id`), userID)
	return out, err
}

const alertCols = `id, user_id, metal, direction, target_units, rearm_units, arm_units, repeat, enabled, armed, last_triggered_at, fired_count, created_at, updated_at`

// InsertAlert stores a, unless its owner already has max alerts (ErrLimit).
func (s *Store) InsertAlert(ctx context.Context, a PriceAlert, max int) (PriceAlert, error) {
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if err := s.lockUser(ctx, tx, a.UserID); err != nil {
			return err
		}
		var n int
		if err := tx.GetContext(ctx, &n, tx.Rebind(`SELECT count(*) FROM price_alerts WHERE user_id = ?`), a.UserID); err != nil {
			return err
		}
		if n >= max {
			return ErrLimit
		}
		return tx.GetContext(ctx, &a.ID, tx.Rebind(`INSERT INTO price_alerts (user_id, metal, direction, target_units, rearm_units, arm_units, repeat, enabled, armed, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
			a.UserID, a.Metal, a.Direction, a.TargetUnits, a.RearmUnits, a.ArmUnits, a.Repeat, a.Enabled, a.Armed, a.CreatedAt, a.UpdatedAt)
	})
	return a, err
}

// Alerts lists the user's alerts, oldest first.
func (s *Store) Alerts(ctx context.Context, userID int64) ([]PriceAlert, error) {
	var out []PriceAlert
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT `+alertCols+` FROM price_alerts WHERE user_id = ? ORDER BY id`), userID)
	return out, err
}

// Alert is the user's own alert id; another's is ErrNotFound.
func (s *Store) Alert(ctx context.Context, userID, id int64) (PriceAlert, error) {
	var a PriceAlert
	err := s.db.GetContext(ctx, &a, s.rebind(`SELECT `+alertCols+` FROM price_alerts WHERE id = ? AND user_id = ?`), id, userID)
	return a, notFound(err)
}

// UpdateAlert writes the changeable fields of the user's own alert.
func (s *Store) UpdateAlert(ctx context.Context, a PriceAlert) error {
	res, err := s.db.ExecContext(ctx, s.rebind(`UPDATE price_alerts SET direction = ?, target_units = ?, rearm_units = ?, arm_units = ?, repeat = ?,
		enabled = ?, armed = ?, updated_at = ? WHERE id = ? AND user_id = ?`),
		a.Direction, a.TargetUnits, a.RearmUnits, a.ArmUnits, a.Repeat, a.Enabled, a.Armed, a.UpdatedAt, a.ID, a.UserID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// DeleteAlert removes the user's own alert; its firing history stays.
func (s *Store) DeleteAlert(ctx context.Context, userID, id int64) error {
	res, err := s.db.ExecContext(ctx, s.rebind(`DELETE FROM price_alerts WHERE id = ? AND user_id = ?`), id, userID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// FiredAlert is an alert a tick fired, with its notification.
type FiredAlert struct {
	AlertID        int64 `db:"id"`
	UserID         int64 `db:"user_id"`
	TargetUnits    int64 `db:"target_units"`
	Direction      string
	NotificationID int64
}

// TickResult says what one tick did.
type TickResult struct {
	Fired  []FiredAlert
	Armed  int64
	Outbox int64
}

// EvaluateTick applies one accepted price of metal to its alerts in one transaction: armed
// alerts whose target the price reached fire (once-alerts disable themselves, re-arming ones
// disarm until the price is back past their re-arm price), each firing writes its
// notification and one outbox row per device of its owner, and disarmed alerts the price has
// moved back past arm again. Only rows the price crosses are read, through the partial
// indexes on (metal, direction, price).
func (s *Store) EvaluateTick(ctx context.Context, metal string, priceUnits, asOf, now int64) (TickResult, error) {
	var r TickResult
	on, off := "enabled AND armed", "enabled AND NOT armed"
	if s.Engine != Postgres {
		on, off = "enabled = 1 AND armed = 1", "enabled = 1 AND armed = 0"
	}
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		r = TickResult{}
		// Each statement walks its partial index in price order from the tick's price, a batch
		// at a time: a plain index scan, which on PostgreSQL also marks the entries of rows
		// earlier ticks moved out (dead until vacuum) so later ticks skip them. The outer
		// conditions are checked again on the row itself, so a concurrent evaluation of the
		// same tick cannot fire it twice.
		const batch = 1000
		for _, dir := range []struct{ name, reached, passed, fireOrder, armOrder string }{
			{"above", "<=", ">=", "target_units DESC", "arm_units ASC"},
			{"below", ">=", "<=", "target_units ASC", "arm_units DESC"},
		} {
			fireCond := `metal = ? AND direction = '` + dir.name + `' AND ` + on + ` AND target_units ` + dir.reached + ` ?`
			q := `UPDATE price_alerts SET armed = ?, enabled = (repeat = 'rearm'), arm_units = rearm_units, last_triggered_at = ?,
				fired_count = fired_count + 1, updated_at = ?
				WHERE id IN (SELECT id FROM price_alerts WHERE ` + fireCond + ` ORDER BY ` + dir.fireOrder + ` LIMIT ` + fmt.Sprint(batch) + `) AND ` + fireCond + `
				RETURNING id, user_id, target_units`
			for {
				var fired []FiredAlert
				if err := tx.SelectContext(ctx, &fired, tx.Rebind(q), false, now, now, metal, priceUnits, metal, priceUnits); err != nil {
					return fmt.Errorf("fire %s alerts: %w", dir.name, err)
				}
				for i := range fired {
					fired[i].Direction = dir.name
				}
				r.Fired = append(r.Fired, fired...)
				if len(fired) < batch {
					break
				}
			}
			armCond := `metal = ? AND direction = '` + dir.name + `' AND ` + off + ` AND arm_units ` + dir.passed + ` ?`
			aq := `UPDATE price_alerts SET armed = ?, updated_at = ?
				WHERE id IN (SELECT id FROM price_alerts WHERE ` + armCond + ` ORDER BY ` + dir.armOrder + ` LIMIT ` + fmt.Sprint(batch) + `) AND ` + armCond
			for {
				res, err := tx.ExecContext(ctx, tx.Rebind(aq), true, now, metal, priceUnits, metal, priceUnits)
				if err != nil {
					return fmt.Errorf("arm %s alerts: %w", dir.name, err)
				}
				n, _ := res.RowsAffected()
				r.Armed += n
				if n < batch {
					break
				}
			}
		}
		if len(r.Fired) == 0 {
			return nil
		}
		const chunk = 400
		for start := 0; start < len(r.Fired); start += chunk {
			part := r.Fired[start:min(start+chunk, len(r.Fired))]
			var b strings.Builder
			args := make([]any, 0, len(part)*8)
			b.WriteString(`INSERT INTO alert_notifications (user_id, alert_id, metal, direction, target_units, price_units, price_as_of, fired_at) VALUES `)
			for i, f := range part {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?)")
				args = append(args, f.UserID, f.AlertID, metal, f.Direction, f.TargetUnits, priceUnits, asOf, now)
			}
			b.WriteString(` RETURNING id, alert_id`)
			rows, err := tx.QueryxContext(ctx, tx.Rebind(b.String()), args...)
			if err != nil {
				return fmt.Errorf("notifications: %w", err)
			}
			byAlert := map[int64]int64{}
			var ids []any
			for rows.Next() {
				var id, alertID int64
				if err := rows.Scan(&id, &alertID); err != nil {
					rows.Close()
					return err
				}
				byAlert[alertID] = id
				ids = append(ids, id)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			for i := range part {
				part[i].NotificationID = byAlert[part[i].AlertID]
			}
			q := `INSERT INTO push_outbox (notification_id, device_id, status, attempts, next_at, created_at, updated_at)
				SELECT n.id, d.id, 'pending', 0, ?, ?, ? FROM alert_notifications n JOIN push_devices d ON d.user_id = n.user_id
				WHERE n.id IN (?` + strings.Repeat(", ?", len(ids)-1) + `)`
			res, err := tx.ExecContext(ctx, tx.Rebind(q), append([]any{now, now, now}, ids...)...)
			if err != nil {
				return fmt.Errorf("outbox: %w", err)
			}
			n, _ := res.RowsAffected()
			r.Outbox += n
		}
		return nil
	})
	return r, err
}

// ClaimOutbox leases up to limit outbox rows that are due at now, for lease milliseconds, so
// no other worker takes them meanwhile; a worker that dies leaves them to be claimed again
// once the lease ends.
func (s *Store) ClaimOutbox(ctx context.Context, now, lease int64, limit int) ([]OutboxItem, error) {
	var out []OutboxItem
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		q := `SELECT id FROM push_outbox WHERE status IN ('pending', 'ticketed') AND next_at <= ? AND lease_until <= ? ORDER BY next_at, id LIMIT ?`
		if s.Engine == Postgres {
			q += ` FOR UPDATE SKIP LOCKED`
		}
		var ids []int64
		if err := tx.SelectContext(ctx, &ids, tx.Rebind(q), now, now, limit); err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		in, args, err := sqlx.In(`UPDATE push_outbox SET lease_until = ? WHERE id IN (?)`, now+lease, ids)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, tx.Rebind(in), args...); err != nil {
			return err
		}
		in, args, err = sqlx.In(`SELECT o.id, o.notification_id, o.device_id, o.status, o.attempts, o.ticket_id, o.created_at,
			d.platform, d.token, d.p256dh, d.auth,
			n.user_id, n.alert_id, n.metal, n.direction, n.target_units, n.price_units, n.price_as_of, n.fired_at, n.read_at
			FROM push_outbox o JOIN push_devices d ON d.id = o.device_id JOIN alert_notifications n ON n.id = o.notification_id
			WHERE o.id IN (?) ORDER BY o.id`, ids)
		if err != nil {
			return err
		}
		return tx.SelectContext(ctx, &out, tx.Rebind(in), args...)
	})
	for i := range out {
		out[i].AlertNotification.ID = out[i].NotificationID
	}
	return out, err
}

// OutboxUpdate is what became of one claimed outbox row.
type OutboxUpdate struct {
	ID       int64
	Status   string
	Attempts int
	NextAt   int64
	TicketID string
	Error    string
	// Delivery is the outcome recorded in push_deliveries.
	Outcome string
	Detail  string
	Item    OutboxItem
}

// FinishOutbox records the outcome of a claimed row and sets its next state, releasing the
// lease.
func (s *Store) FinishOutbox(ctx context.Context, u OutboxUpdate, now int64) error {
	return s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO push_deliveries (outbox_id, notification_id, device_id, platform, attempt, outcome, detail, at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`), u.ID, u.Item.NotificationID, u.Item.DeviceID, u.Item.Platform, u.Attempts, u.Outcome, u.Detail, now); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE push_outbox SET status = ?, attempts = ?, next_at = ?, ticket_id = ?, last_error = ?, lease_until = 0, updated_at = ?
			WHERE id = ?`), u.Status, u.Attempts, u.NextAt, u.TicketID, u.Error, now, u.ID)
		return err
	})
}

// OutboxRow is an outbox row's state, for tests and the admin view.
type OutboxRow struct {
	ID             int64  `db:"id"`
	NotificationID int64  `db:"notification_id"`
	DeviceID       int64  `db:"device_id"`
	Status         string `db:"status"`
	Attempts       int    `db:"attempts"`
	NextAt         int64  `db:"next_at"`
	TicketID       string `db:"ticket_id"`
	LastError      string `db:"last_error"`
}

// OutboxRows lists every outbox row of the user's notifications.
func (s *Store) OutboxRows(ctx context.Context, userID int64) ([]OutboxRow, error) {
	var out []OutboxRow
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT o.id, o.notification_id, o.device_id, o.status, o.attempts, o.next_at, o.ticket_id, o.last_error
		FROM push_outbox o JOIN alert_notifications n ON n.id = o.notification_id WHERE n.user_id = ? ORDER BY o.id`), userID)
	return out, err
}

// Delivery is one recorded delivery outcome.
type Delivery struct {
	OutboxID       int64  `db:"outbox_id"`
	NotificationID int64  `db:"notification_id"`
	DeviceID       int64  `db:"device_id"`
	Platform       string `db:"platform"`
	Attempt        int    `db:"attempt"`
	Outcome        string `db:"outcome"`
	Detail         string `db:"detail"`
	At             int64  `db:"at"`
}

// Deliveries lists the outcomes recorded for the notification, in order.
func (s *Store) Deliveries(ctx context.Context, notificationID int64) ([]Delivery, error) {
	var out []Delivery
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT outbox_id, notification_id, device_id, platform, attempt, outcome, detail, at
		FROM push_deliveries WHERE notification_id = ? ORDER BY id`), notificationID)
	return out, err
}

const notificationCols = `id, user_id, alert_id, metal, direction, target_units, price_units, price_as_of, fired_at, read_at`

// Notifications lists the user's newest notifications first.
func (s *Store) Notifications(ctx context.Context, userID int64, limit int) ([]AlertNotification, error) {
	var out []AlertNotification
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT `+notificationCols+` FROM alert_notifications WHERE user_id = ? ORDER BY id DESC LIMIT ?`), userID, limit)
	return out, err
}

// NotificationsSince lists the user's notifications fired at or after since (unix ms), oldest first.
func (s *Store) NotificationsSince(ctx context.Context, userID, since int64) ([]AlertNotification, error) {
	var out []AlertNotification
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT `+notificationCols+` FROM alert_notifications WHERE user_id = ? AND fired_at >= ? ORDER BY id`), userID, since)
	return out, err
}

// UnreadNotifications counts the user's unread notifications.
func (s *Store) UnreadNotifications(ctx context.Context, userID int64) (int64, error) {
	var n int64
	err := s.db.GetContext(ctx, &n, s.rebind(`SELECT count(*) FROM alert_notifications WHERE user_id = ? AND read_at IS NULL`), userID)
	return n, err
}

// MarkNotificationsRead marks every unread notification of the user read.
func (s *Store) MarkNotificationsRead(ctx context.Context, userID, now int64) error {
	_, err := s.db.ExecContext(ctx, s.rebind(`UPDATE alert_notifications SET read_at = ? WHERE user_id = ? AND read_at IS NULL`), now, userID)
	return err
}

// VAPIDKeys returns the installation's Web Push key pair, storing fresh() the first time any
// instance asks; every instance then signs with the same pair.
func (s *Store) VAPIDKeys(ctx context.Context, fresh func() (public, private string, err error)) (public, private string, err error) {
	var row struct {
		Public  string `db:"public_key"`
		Private string `db:"private_key"`
	}
	err = s.db.GetContext(ctx, &row, `SELECT public_key, private_key FROM push_vapid_keys WHERE id = 1`)
	if err == nil {
		return row.Public, row.Private, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", "", err
	}
	pub, priv, err := fresh()
	if err != nil {
		return "", "", err
	}
	if _, err := s.db.ExecContext(ctx, s.rebind(`INSERT INTO push_vapid_keys (id, public_key, private_key, created_at) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO NOTHING`),
		pub, priv, s.now().UnixMilli()); err != nil {
		return "", "", fmt.Errorf("store VAPID keys: %w", err)
	}
	err = s.db.GetContext(ctx, &row, `SELECT public_key, private_key FROM push_vapid_keys WHERE id = 1`)
	return row.Public, row.Private, err
}

// ImportAlerts stores many alerts in one transaction (a migration from another system, or a
// benchmark's million), without the per-member caps; on PostgreSQL the table is analysed
// afterwards so the planner knows its new size at once.
func (s *Store) ImportAlerts(ctx context.Context, rows []PriceAlert) error {
	const chunk = 500
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		for start := 0; start < len(rows); start += chunk {
			part := rows[start:min(start+chunk, len(rows))]
			var b strings.Builder
			args := make([]any, 0, len(part)*11)
			b.WriteString(`INSERT INTO price_alerts (user_id, metal, direction, target_units, rearm_units, arm_units, repeat, enabled, armed, created_at, updated_at) VALUES `)
			for i, a := range part {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
				args = append(args, a.UserID, a.Metal, a.Direction, a.TargetUnits, a.RearmUnits, a.ArmUnits, a.Repeat, a.Enabled, a.Armed, a.CreatedAt, a.UpdatedAt)
			}
			if _, err := tx.ExecContext(ctx, tx.Rebind(b.String()), args...); err != nil {
				return fmt.Errorf("import alerts: %w", err)
			}
		}
		return nil
	})
	if err != nil || s.Engine != Postgres {
		return err
	}
	_, err = s.db.ExecContext(ctx, `ANALYZE price_alerts`)
	return err
}
