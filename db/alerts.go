package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Price alerts and their push delivery (migration 0013). Prices are fixed-point units of
// 1/10000 of the alert's currency per its weight unit (USD per troy ounce unless migration
// 0022's currency and unit say otherwise), times unix milliseconds. A tick fires an alert with one conditional
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
	ID          int64  `db:"id"`
	UserID      int64  `db:"user_id"`
	Metal       string `db:"metal"`
	Direction   string `db:"direction"`
	TargetUnits int64  `db:"target_units"`
	// Currency and Unit are what the target (and rearm_units, arm_units) are in: units of
	// 1/10000 of the currency per weight unit (migration 0022; USD and oz before it).
	Currency        string        `db:"currency"`
	Unit            string        `db:"unit"`
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
	Currency    string        `db:"currency"`
	Unit        string        `db:"unit"`
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
	return oneRow(s.db.ExecContext(ctx, s.rebind(`DELETE FROM push_devices WHERE user_id = ? AND token = ?`), userID, token))
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

const alertCols = `id, user_id, metal, direction, target_units, currency, unit, rearm_units, arm_units, repeat, enabled, armed, last_triggered_at, fired_count, created_at, updated_at`

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
		if err := addAlertQuote(ctx, tx, a); err != nil {
			return err
		}
		return tx.GetContext(ctx, &a.ID, tx.Rebind(`INSERT INTO price_alerts (user_id, metal, direction, target_units, currency, unit, rearm_units, arm_units, repeat, enabled, armed, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
			a.UserID, a.Metal, a.Direction, a.TargetUnits, quoteCurrency(a.Currency), quoteUnit(a.Unit), a.RearmUnits, a.ArmUnits, a.Repeat, a.Enabled, a.Armed, a.CreatedAt, a.UpdatedAt)
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
	return memberRow[PriceAlert](ctx, s, alertCols, "price_alerts", userID, id)
}

// UpdateAlert writes the changeable fields of the user's own alert.
func (s *Store) UpdateAlert(ctx context.Context, a PriceAlert) error {
	return s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if err := addAlertQuote(ctx, tx, a); err != nil {
			return err
		}
		return oneRow(tx.ExecContext(ctx, tx.Rebind(`UPDATE price_alerts SET direction = ?, target_units = ?, currency = ?, unit = ?, rearm_units = ?, arm_units = ?, repeat = ?,
		enabled = ?, armed = ?, updated_at = ? WHERE id = ? AND user_id = ?`),
			a.Direction, a.TargetUnits, quoteCurrency(a.Currency), quoteUnit(a.Unit), a.RearmUnits, a.ArmUnits, a.Repeat, a.Enabled, a.Armed, a.UpdatedAt, a.ID, a.UserID))
	})
}

// AlertQuote is a metal in a currency and weight unit some alert has been set in: a tick of
// the metal is converted to each quote once and evaluated against that quote's alerts.
type AlertQuote struct {
	Metal    string `db:"metal"`
	Currency string `db:"currency"`
	Unit     string `db:"unit"`
}

// AlertQuotes lists every quote an alert has been set in (USD per troy ounce included once
// any alert of the metal has been).
func (s *Store) AlertQuotes(ctx context.Context) ([]AlertQuote, error) {
	var out []AlertQuote
	err := s.db.SelectContext(ctx, &out, `SELECT metal, currency, unit FROM price_alert_quotes ORDER BY metal, currency, unit`)
	return out, err
}

// addAlertQuote records the quote of a, in a's transaction, so the next tick converts to it.
func addAlertQuote(ctx context.Context, tx *sqlx.Tx, a PriceAlert) error {
	_, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO price_alert_quotes (metal, currency, unit) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`),
		a.Metal, quoteCurrency(a.Currency), quoteUnit(a.Unit))
	return err
}

// quoteCurrency and quoteUnit stand the defaults (USD per troy ounce) in for unset fields.
func quoteCurrency(c string) string {
	if c == "" {
		return "USD"
	}
	return c
}

func quoteUnit(u string) string {
	if u == "" {
		return "oz"
	}
	return u
}

// DeleteAlert removes the user's own alert; its firing history stays.
func (s *Store) DeleteAlert(ctx context.Context, userID, id int64) error {
	return oneRow(s.db.ExecContext(ctx, s.rebind(`DELETE FROM price_alerts WHERE id = ? AND user_id = ?`), id, userID))
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
//
// This is the one place where a rule lives in SQL, sanctioned because a tick over a million
// alerts must be decided and written set-based, without carrying the crossing rows through
// Go. The rule itself is owned by internal/alerts (Evaluate, Create and the re-arm price it
// stores): an armed, enabled alert fires when the price reaches its target (at or above for
// "above", at or below for "below"); a firing disables a once-alert and disarms a re-arming
// one with arm_units = rearm_units; a disarmed alert arms again when the price is at or past
// arm_units on the far side. The predicate below (fireCond, armCond, fireSet) must say
// exactly that, and internal/alerts' tests on both engines pin it.
func (s *Store) EvaluateTick(ctx context.Context, metal string, priceUnits, asOf, now int64) (TickResult, error) {
	return s.EvaluateQuoteTick(ctx, AlertQuote{Metal: metal}, priceUnits, asOf, now)
}

// EvaluateQuoteTick is EvaluateTick for the alerts set in one quote (a metal in a currency
// and weight unit), priceUnits being the tick converted to that quote: only those alerts are
// read, fired or armed, and their notifications carry the quote's currency and unit.
func (s *Store) EvaluateQuoteTick(ctx context.Context, q AlertQuote, priceUnits, asOf, now int64) (TickResult, error) {
	rs, err := s.EvaluateQuoteTicks(ctx, []QuoteTick{{Quote: q, PriceUnits: priceUnits}}, asOf, now)
	if err != nil {
		return TickResult{}, err
	}
	return rs[0], nil
}

// QuoteTick is one tick converted to one quote.
type QuoteTick struct {
	Quote      AlertQuote
	PriceUnits int64
}

// EvaluateQuoteTicks is EvaluateQuoteTick for each quote of one tick, in one transaction (one
// commit for the tick however many currencies its alerts are set in); the results are in the
// order of ticks.
func (s *Store) EvaluateQuoteTicks(ctx context.Context, ticks []QuoteTick, asOf, now int64) ([]TickResult, error) {
	out := make([]TickResult, len(ticks))
	for i := range ticks {
		ticks[i].Quote.Currency, ticks[i].Quote.Unit = quoteCurrency(ticks[i].Quote.Currency), quoteUnit(ticks[i].Quote.Unit)
	}
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		for i := range out {
			out[i] = TickResult{}
		}
		if len(ticks) == 0 {
			return nil
		}
		if s.Engine == Postgres {
			// One statement for every quote: each quote's alerts are read through the index
			// from its own price (a LATERAL probe per quote); the results are told per quote.
			return evaluateTickPostgres(ctx, tx, out, ticks, asOf, now)
		}
		for i, t := range ticks {
			if err := evaluateTickSQLite(ctx, tx, &out[i], t.Quote, t.PriceUnits, asOf, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, r := range out {
		if len(r.Fired) > 0 || r.Armed > 0 {
			// The pages this tick changed are copied into the database file in the background,
			// not on this commit or the next (see checkpoint.go).
			s.CheckpointSoon()
			break
		}
	}
	return out, nil
}

// tickDirs are the two directions with how a price reaches a target (fire) and passes an
// arming price (arm), and the index order each walks from the tick's price.
var tickDirs = []struct{ name, reached, passed, fireOrder, armOrder string }{
	{"above", "<=", ">=", "target_units DESC", "arm_units ASC"},
	{"below", ">=", "<=", "target_units ASC", "arm_units DESC"},
}

// fireSet is what a firing does to the alert row (see EvaluateTick for whose rule it is).
const fireSet = `armed = FALSE, enabled = (repeat = 'rearm'), arm_units = rearm_units, last_triggered_at = :now,
	fired_count = fired_count + 1, updated_at = :now`

// fireSetOn is fireSet with the alert row's own columns read through alias (an UPDATE … FROM
// that joins another relation; the columns set are never qualified).
func fireSetOn(alias string) string {
	return `armed = FALSE, enabled = (` + alias + `.repeat = 'rearm'), arm_units = ` + alias + `.rearm_units, last_triggered_at = :now,
	fired_count = ` + alias + `.fired_count + 1, updated_at = :now`
}

// tickBatch bounds how many rows one statement fires or arms per direction: each walks its
// partial index in price order from the tick's price a batch at a time, a plain index scan,
// which on PostgreSQL also marks the entries of rows earlier ticks moved out (dead until
// vacuum) so later ticks skip them.
const tickBatch = 1000

// evaluateTickPostgres does a tick in one statement (repeated only past tickBatch rows): the
// firing UPDATE … RETURNING of both directions feeds the notification INSERT, whose RETURNING
// feeds the outbox INSERT, beside the two arming UPDATEs. The fire and arm sets are disjoint
// (armed rows versus disarmed ones in the statement's one snapshot), so no row is changed
// twice. The conditions are checked again on the row itself, so a concurrent evaluation of
// the same tick, which waits for this one's row locks, finds the rows no longer armed and
// cannot fire them twice. Every quote of the tick (one metal, each currency and unit its
// alerts are set in, the tick converted to each) is in the one statement: a VALUES list joined
// to the alerts, each quote probing the index from its own price (LATERAL), and each row
// checked again against its own quote's price; rs[i] tells what ticks[i] did, and the
// statement repeats while any quote filled a batch.
func evaluateTickPostgres(ctx context.Context, tx *sqlx.Tx, rs []TickResult, ticks []QuoteTick, asOf, now int64) error {
	metal := ticks[0].Quote.Metal
	params := map[string]any{"metal": metal, "as_of": asOf, "now": now}
	var b strings.Builder
	// q is the tick in each quote: (n, currency, unit, price), n indexing ticks.
	b.WriteString("WITH q (n, currency, unit, price) AS (VALUES ")
	for i, t := range ticks {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(%d, CAST(:c%d AS TEXT), CAST(:u%d AS TEXT), CAST(:p%d AS BIGINT))", i, i, i, i)
		params[fmt.Sprintf("c%d", i)], params[fmt.Sprintf("u%d", i)], params[fmt.Sprintf("p%d", i)] = t.Quote.Currency, t.Quote.Unit, t.PriceUnits
	}
	b.WriteString("),\n")
	for _, d := range tickDirs {
		// The conditions on a row a of price_alerts in a quote (alias x of q's columns).
		fireCond := func(x string) string {
			return `a.metal = :metal AND a.currency = ` + x + `.currency AND a.unit = ` + x + `.unit AND a.direction = '` + d.name + `' AND a.enabled AND a.armed AND a.target_units ` + d.reached + ` ` + x + `.price`
		}
		armCond := func(x string) string {
			return `a.metal = :metal AND a.currency = ` + x + `.currency AND a.unit = ` + x + `.unit AND a.direction = '` + d.name + `' AND a.enabled AND NOT a.armed AND a.arm_units ` + d.passed + ` ` + x + `.price`
		}
		// hit: the rows each quote reaches, read through the partial index in price order from
		// the quote's price a batch at a time; the UPDATE joins them by id and checks each row
		// again against its quote (so a concurrent evaluation finds it changed).
		fmt.Fprintf(&b, `fire_%[1]s AS (
			UPDATE price_alerts AS a SET %[2]s
			FROM (SELECT x.id AS hit_id, q.n, q.currency, q.unit, q.price FROM q CROSS JOIN LATERAL
				(SELECT a.id FROM price_alerts AS a WHERE %[3]s ORDER BY a.%[4]s LIMIT %[8]d) AS x) AS hit
			WHERE a.id = hit.hit_id AND %[5]s
			RETURNING a.id, a.user_id, a.target_units, CAST('%[1]s' AS TEXT) AS direction, hit.n, hit.price, hit.currency, hit.unit),
		arm_%[1]s AS (
			UPDATE price_alerts AS a SET armed = TRUE, updated_at = :now
			FROM (SELECT x.id AS hit_id, q.n, q.currency, q.unit, q.price FROM q CROSS JOIN LATERAL
				(SELECT a.id FROM price_alerts AS a WHERE %[6]s ORDER BY a.%[7]s LIMIT %[8]d) AS x) AS hit
			WHERE a.id = hit.hit_id AND %[9]s
			RETURNING a.id, hit.n),
		`, d.name, fireSetOn("a"), fireCond("q"), d.fireOrder, fireCond("hit"), armCond("q"), d.armOrder, tickBatch, armCond("hit"))
	}
	b.WriteString(`fired AS (SELECT * FROM fire_above UNION ALL SELECT * FROM fire_below),
		notes AS (
			INSERT INTO alert_notifications (user_id, alert_id, metal, direction, target_units, price_units, currency, unit, price_as_of, fired_at)
			SELECT user_id, id, :metal, direction, target_units, price, currency, unit, :as_of, :now FROM fired
			RETURNING id, user_id, alert_id, target_units, direction),
		outbox AS (
			INSERT INTO push_outbox (notification_id, device_id, status, attempts, next_at, created_at, updated_at)
			SELECT notes.id, d.id, 'pending', 0, :now, :now, :now FROM notes JOIN push_devices d ON d.user_id = notes.user_id
			RETURNING id, notification_id)
		SELECT (SELECT max(c) FROM (SELECT count(*) AS c FROM fire_above GROUP BY n UNION ALL SELECT count(*) FROM fire_below GROUP BY n
				UNION ALL SELECT count(*) FROM arm_above GROUP BY n UNION ALL SELECT count(*) FROM arm_below GROUP BY n) AS per_quote) AS most,
			(SELECT array_agg(n ORDER BY n) FROM (SELECT n FROM arm_above UNION ALL SELECT n FROM arm_below) AS armed) AS armed_quotes,
			(SELECT array_agg(o.n ORDER BY o.id) FROM (SELECT outbox.id, fired.n FROM outbox JOIN notes ON notes.id = outbox.notification_id
				JOIN fired ON fired.id = notes.alert_id) AS o) AS outbox_quotes,
			(SELECT array_agg(fired.n ORDER BY notes.id) FROM notes JOIN fired ON fired.id = notes.alert_id) AS quotes,
			(SELECT array_agg(alert_id ORDER BY id) FROM notes) AS alert_ids, (SELECT array_agg(user_id ORDER BY id) FROM notes) AS user_ids,
			(SELECT array_agg(target_units ORDER BY id) FROM notes) AS targets, (SELECT array_agg(direction ORDER BY id) FROM notes) AS directions,
			(SELECT array_agg(id ORDER BY id) FROM notes) AS notification_ids`)
	q, args, err := sqlx.Named(b.String(), params)
	if err != nil {
		return err
	}
	q = tx.Rebind(q)
	for {
		var row struct {
			Most            sql.NullInt64  `db:"most"`
			ArmedQuotes     pq.Int64Array  `db:"armed_quotes"`
			OutboxQuotes    pq.Int64Array  `db:"outbox_quotes"`
			Quotes          pq.Int64Array  `db:"quotes"`
			AlertIDs        pq.Int64Array  `db:"alert_ids"`
			UserIDs         pq.Int64Array  `db:"user_ids"`
			Targets         pq.Int64Array  `db:"targets"`
			Directions      pq.StringArray `db:"directions"`
			NotificationIDs pq.Int64Array  `db:"notification_ids"`
		}
		if err := tx.GetContext(ctx, &row, q, args...); err != nil {
			return fmt.Errorf("evaluate tick: %w", err)
		}
		for i, id := range row.NotificationIDs {
			r := &rs[row.Quotes[i]]
			r.Fired = append(r.Fired, FiredAlert{AlertID: row.AlertIDs[i], UserID: row.UserIDs[i], TargetUnits: row.Targets[i], Direction: row.Directions[i], NotificationID: id})
		}
		for _, n := range row.ArmedQuotes {
			rs[n].Armed++
		}
		for _, n := range row.OutboxQuotes {
			rs[n].Outbox++
		}
		if row.Most.Int64 < tickBatch {
			return nil
		}
	}
}

// evaluateTickSQLite does a tick in a few set-based statements per direction. A SQLite
// transaction here holds the database's write lock from its first statement (immediate
// transactions), so the rows a condition selects cannot change between the statements:
// the notifications are inserted straight from the alerts the price reached (INSERT …
// SELECT … RETURNING), the outbox rows from the notifications this tick added (ids past the
// largest before it: AUTOINCREMENT ids only grow), and only then are the same alerts fired.
// The alert UPDATEs say OR FAIL: a constraint failure then leaves the rows the statement
// already changed, so SQLite keeps no statement journal (a copy of every page it changes,
// for undoing just that statement), and the error rolls the whole transaction back anyway.
func evaluateTickSQLite(ctx context.Context, tx *sqlx.Tx, r *TickResult, quote AlertQuote, priceUnits, asOf, now int64) error {
	var lastNote int64
	if err := tx.GetContext(ctx, &lastNote, `SELECT COALESCE(MAX(id), 0) FROM alert_notifications`); err != nil {
		return err
	}
	named := func(q string) (string, []any, error) {
		q, args, err := sqlx.Named(q, map[string]any{"metal": quote.Metal, "currency": quote.Currency, "unit": quote.Unit, "price": priceUnits, "as_of": asOf, "now": now, "last": lastNote})
		return tx.Rebind(q), args, err
	}
	for _, d := range tickDirs {
		fireCond := `metal = :metal AND currency = :currency AND unit = :unit AND direction = '` + d.name + `' AND enabled = 1 AND armed = 1 AND target_units ` + d.reached + ` :price`
		q, args, err := named(`INSERT INTO alert_notifications (user_id, alert_id, metal, direction, target_units, price_units, currency, unit, price_as_of, fired_at)
			SELECT user_id, id, metal, direction, target_units, :price, currency, unit, :as_of, :now FROM price_alerts WHERE ` + fireCond + `
			RETURNING id, alert_id, user_id, target_units`)
		if err != nil {
			return err
		}
		rows, err := tx.QueryxContext(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("fire %s alerts: notifications: %w", d.name, err)
		}
		n := len(r.Fired)
		for rows.Next() {
			f := FiredAlert{Direction: d.name}
			if err := rows.Scan(&f.NotificationID, &f.AlertID, &f.UserID, &f.TargetUnits); err != nil {
				rows.Close()
				return err
			}
			r.Fired = append(r.Fired, f)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(r.Fired) > n {
			q, args, err = named(`UPDATE OR FAIL price_alerts SET ` + fireSet + ` WHERE ` + fireCond)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				return fmt.Errorf("fire %s alerts: %w", d.name, err)
			}
		}
		armCond := `metal = :metal AND currency = :currency AND unit = :unit AND direction = '` + d.name + `' AND enabled = 1 AND armed = 0 AND arm_units ` + d.passed + ` :price`
		q, args, err = named(`UPDATE OR FAIL price_alerts SET armed = 1, updated_at = :now WHERE ` + armCond)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("arm %s alerts: %w", d.name, err)
		}
		armed, _ := res.RowsAffected()
		r.Armed += armed
	}
	if len(r.Fired) == 0 {
		return nil
	}
	q, args, err := named(`INSERT INTO push_outbox (notification_id, device_id, status, attempts, next_at, created_at, updated_at)
		SELECT n.id, d.id, 'pending', 0, :now, :now, :now FROM alert_notifications n JOIN push_devices d ON d.user_id = n.user_id
		WHERE n.id > :last`)
	if err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("outbox: %w", err)
	}
	r.Outbox, _ = res.RowsAffected()
	return nil
}

// ClaimOutbox leases up to limit outbox rows that are due at now, for lease milliseconds, so
// no other worker takes them meanwhile; a worker that dies leaves them to be claimed again
// once the lease ends.
func (s *Store) ClaimOutbox(ctx context.Context, now, lease int64, limit int) ([]OutboxItem, error) {
	out, err := claimRows[OutboxItem](ctx, s, "push_outbox", "status IN ('pending', 'ticketed')",
		`SELECT o.id, o.notification_id, o.device_id, o.status, o.attempts, o.ticket_id, o.created_at,
			d.platform, d.token, d.p256dh, d.auth,
			n.user_id, n.alert_id, n.metal, n.direction, n.target_units, n.price_units, n.currency, n.unit, n.price_as_of, n.fired_at, n.read_at
			FROM push_outbox o JOIN push_devices d ON d.id = o.device_id JOIN alert_notifications n ON n.id = o.notification_id
			WHERE o.id IN (?) ORDER BY o.id`, now, lease, limit)
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
	return selectAll[OutboxRow](ctx, s, `SELECT o.id, o.notification_id, o.device_id, o.status, o.attempts, o.next_at, o.ticket_id, o.last_error
		FROM push_outbox o JOIN alert_notifications n ON n.id = o.notification_id WHERE n.user_id = ? ORDER BY o.id`, userID)
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
	return selectAll[Delivery](ctx, s, `SELECT outbox_id, notification_id, device_id, platform, attempt, outcome, detail, at
		FROM push_deliveries WHERE notification_id = ? ORDER BY id`, notificationID)
}

const notificationCols = `id, user_id, alert_id, metal, direction, target_units, price_units, currency, unit, price_as_of, fired_at, read_at`

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
	seen := map[AlertQuote]bool{}
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		for start := 0; start < len(rows); start += chunk {
			part := rows[start:min(start+chunk, len(rows))]
			var b strings.Builder
			args := make([]any, 0, len(part)*13)
			b.WriteString(`INSERT INTO price_alerts (user_id, metal, direction, target_units, currency, unit, rearm_units, arm_units, repeat, enabled, armed, created_at, updated_at) VALUES `)
			for i, a := range part {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
				args = append(args, a.UserID, a.Metal, a.Direction, a.TargetUnits, quoteCurrency(a.Currency), quoteUnit(a.Unit), a.RearmUnits, a.ArmUnits, a.Repeat, a.Enabled, a.Armed, a.CreatedAt, a.UpdatedAt)
				if !seen[AlertQuote{a.Metal, quoteCurrency(a.Currency), quoteUnit(a.Unit)}] {
					seen[AlertQuote{a.Metal, quoteCurrency(a.Currency), quoteUnit(a.Unit)}] = true
					if err := addAlertQuote(ctx, tx, a); err != nil {
						return err
					}
				}
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
