package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// Location is one of a member's named storage places (issue 28). InsuredValue is decimal
// text ("" when not given): the store keeps it and does no arithmetic with it.
type Location struct {
	ID           string         `db:"id"`
	UserID       int64          `db:"user_id"`
	Name         string         `db:"name"`
	Kind         string         `db:"kind"`
	InsuredValue sql.NullString `db:"insured_value"`
	Notes        string         `db:"notes"`
	CreatedAt    time.Time      `db:"created_at"`
	UpdatedAt    time.Time      `db:"updated_at"`
	// Lots is how many of the member's holdings are kept there (filled by LocationsByUser).
	Lots int64 `db:"lots"`
}

// Transfer is one recorded move of a lot between places (an empty id: unassigned).
type Transfer struct {
	ID             int64          `db:"id"`
	HoldingID      string         `db:"holding_id"`
	FromLocationID sql.NullString `db:"from_location_id"`
	ToLocationID   sql.NullString `db:"to_location_id"`
	On             Date           `db:"moved_on"`
	Note           string         `db:"note"`
	CreatedAt      time.Time      `db:"created_at"`
}

// ErrNoSuchLocation is a location id that is not one of the member's.
var ErrNoSuchLocation = errors.New("no such location")

// sqliteDir is the directory of an SQLite file, where its documents are kept; "" in memory.
func sqliteDir(path string) string {
	if path == ":memory:" || strings.HasPrefix(path, "file:") {
		return ""
	}
	return filepath.Dir(path)
}

const locationCols = `id, user_id, name, kind, insured_value, notes, created_at, updated_at`

// InsertLocation stores a new location, filling its id and times.
func (s *Store) InsertLocation(ctx context.Context, l Location) (Location, error) {
	now := s.now()
	l.ID, l.CreatedAt, l.UpdatedAt = newID("loc_"), now, now
	_, err := s.db.ExecContext(ctx, s.rebind(`INSERT INTO locations (`+locationCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
		l.ID, l.UserID, l.Name, l.Kind, l.InsuredValue, l.Notes, l.CreatedAt, l.UpdatedAt)
	if err != nil {
		return Location{}, fmt.Errorf("insert location: %w", err)
	}
	return l, nil
}

// LocationsByUser lists the member's locations by name, each with its count of lots.
func (s *Store) LocationsByUser(ctx context.Context, userID int64) ([]Location, error) {
	out := []Location{}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT `+locationCols+`,
		(SELECT count(*) FROM holdings h WHERE h.location_id = locations.id) AS lots
		FROM locations WHERE user_id = ? ORDER BY name, id`), userID)
	return out, err
}

// LocationByID returns the member's location; anyone else's is ErrNotFound.
func (s *Store) LocationByID(ctx context.Context, userID int64, id string) (Location, error) {
	var l Location
	err := s.db.GetContext(ctx, &l, s.rebind(`SELECT `+locationCols+`,
		(SELECT count(*) FROM holdings h WHERE h.location_id = locations.id) AS lots
		FROM locations WHERE id = ? AND user_id = ?`), id, userID)
	return l, notFound(err)
}

// UpdateLocation overwrites the location's editable fields.
func (s *Store) UpdateLocation(ctx context.Context, l Location) (Location, error) {
	res, err := s.db.ExecContext(ctx, s.rebind(`UPDATE locations SET name = ?, kind = ?, insured_value = ?, notes = ?, updated_at = ?
		WHERE id = ? AND user_id = ?`), l.Name, l.Kind, l.InsuredValue, l.Notes, s.now(), l.ID, l.UserID)
	if err != nil {
		return Location{}, fmt.Errorf("update location: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Location{}, ErrNotFound
	}
	return s.LocationByID(ctx, l.UserID, l.ID)
}

// DeleteLocation removes the member's location; one that still holds lots is ErrConflict.
func (s *Store) DeleteLocation(ctx context.Context, userID int64, id string) error {
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		var lots int
		if err := tx.GetContext(ctx, &lots, tx.Rebind(`SELECT count(*) FROM holdings WHERE location_id = ?`), id); err != nil {
			return err
		}
		if lots > 0 {
			return fmt.Errorf("this location still holds %d lots; move them first: %w", lots, ErrConflict)
		}
		res, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM locations WHERE id = ? AND user_id = ?`), id, userID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
	if isForeignKeyViolation(err) {
		return fmt.Errorf("this location still holds lots; move them first: %w", ErrConflict)
	}
	return err
}

// ownLocation checks id names one of the member's locations (a null id is unassigned).
func ownLocation(ctx context.Context, tx *sqlx.Tx, userID int64, id sql.NullString) error {
	if !id.Valid {
		return nil
	}
	var n int
	if err := tx.GetContext(ctx, &n, tx.Rebind(`SELECT count(*) FROM locations WHERE id = ? AND user_id = ?`), id.String, userID); err != nil {
		return err
	}
	if n == 0 {
		return ErrNoSuchLocation
	}
	return nil
}

// MoveHolding puts the member's lot at to (null: unassigned) and records the transfer from
// where it was, dated on, in one transaction. An unknown lot is ErrNotFound, an unknown
// location ErrNoSuchLocation.
func (s *Store) MoveHolding(ctx context.Context, userID int64, holdingID string, to sql.NullString, on Date, note string) (Transfer, error) {
	t := Transfer{HoldingID: holdingID, ToLocationID: to, On: on, Note: note, CreatedAt: s.now()}
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &t.FromLocationID, tx.Rebind(`SELECT location_id FROM holdings WHERE id = ? AND user_id = ?`+s.forUpdate()), holdingID, userID); err != nil {
			return notFound(err)
		}
		if err := ownLocation(ctx, tx, userID, to); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE holdings SET location_id = ? WHERE id = ? AND user_id = ?`), to, holdingID, userID); err != nil {
			return err
		}
		return tx.GetContext(ctx, &t.ID, tx.Rebind(`INSERT INTO holding_transfers (user_id, holding_id, from_location_id, to_location_id, moved_on, note, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`), userID, holdingID, t.FromLocationID, to, on, note, t.CreatedAt)
	})
	if err != nil && !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrNoSuchLocation) {
		return Transfer{}, fmt.Errorf("move holding: %w", err)
	}
	return t, err
}

// PlaceHolding sets the lot's place without recording a transfer (where a new lot starts)
// and, when tags is not nil, its tags.
func (s *Store) PlaceHolding(ctx context.Context, userID int64, holdingID string, loc sql.NullString, tags *string) error {
	return s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if err := ownLocation(ctx, tx, userID, loc); err != nil {
			return err
		}
		q, args := `UPDATE holdings SET location_id = ?`, []any{loc}
		if tags != nil {
			q, args = q+`, tags = ?`, append(args, *tags)
		}
		res, err := tx.ExecContext(ctx, tx.Rebind(q+` WHERE id = ? AND user_id = ?`), append(args, holdingID, userID)...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// SetHoldingTags replaces the lot's tags (joined by commas).
func (s *Store) SetHoldingTags(ctx context.Context, userID int64, holdingID, tags string) error {
	res, err := s.db.ExecContext(ctx, s.rebind(`UPDATE holdings SET tags = ? WHERE id = ? AND user_id = ?`), tags, holdingID, userID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// TransfersOf lists the lot's transfers, oldest first.
func (s *Store) TransfersOf(ctx context.Context, userID int64, holdingID string) ([]Transfer, error) {
	out := []Transfer{}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT id, holding_id, from_location_id, to_location_id, moved_on, note, created_at
		FROM holding_transfers WHERE holding_id = ? AND user_id = ? ORDER BY moved_on, id`), holdingID, userID)
	return out, err
}

// likeEscape makes s a literal inside a LIKE pattern (with ESCAPE '\').
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// custodyWhere adds the search, tag and location filters of a holdings list.
func (f HoldingFilter) custodyWhere(where string, args []any) (string, []any) {
	if f.Q != "" {
		p := "%" + likeEscape(strings.ToLower(f.Q)) + "%"
		where += ` AND (lower(product_name) LIKE ? ESCAPE '\' OR lower(notes) LIKE ? ESCAPE '\' OR lower(dealer) LIKE ? ESCAPE '\' OR lower(tags) LIKE ? ESCAPE '\')`
		args = append(args, p, p, p, p)
	}
	if f.Tag != "" {
		where += ` AND (',' || lower(tags) || ',') LIKE ? ESCAPE '\'`
		args = append(args, "%,"+likeEscape(strings.ToLower(f.Tag))+",%")
	}
	switch f.LocationID {
	case "":
	case "none":
		where += ` AND location_id IS NULL`
	default:
		where += ` AND location_id = ?`
		args = append(args, f.LocationID)
	}
	return where, args
}

// PlaceHeld is the fine ounces still held of one metal and product name at one location
// (LocationID null: unassigned), as the exact integer sums HeldOzInt + HeldOzE8/1e8.
type PlaceHeld struct {
	LocationID  sql.NullString `db:"location_id"`
	Metal       string         `db:"metal"`
	ProductName string         `db:"product_name"`
	HeldOzInt   int64          `db:"held_oz_int"`
	HeldOzE8    int64          `db:"held_oz_e8"`
}

// HeldByPlace sums the member's ounces still held by location, metal and product name: one
// row per distinct product, not per lot, for the allocations.
func (s *Store) HeldByPlace(ctx context.Context, userID int64) ([]PlaceHeld, error) {
	out := []PlaceHeld{}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT location_id, metal, product_name, SUM(held_oz_int) AS held_oz_int, SUM(held_oz_e8) AS held_oz_e8
		FROM holdings WHERE user_id = ? AND quantity > sold_quantity GROUP BY location_id, metal, product_name`), userID)
	return out, err
}

// ErrBulkMissing is a bulk action naming a lot that is not one of the member's; the error's
// text names the id.
var ErrBulkMissing = errors.New("no such holding")

// BulkMissingError names the first id of a bulk action that is not one of the member's lots.
type BulkMissingError struct{ ID string }

func (e *BulkMissingError) Error() string { return "holding " + e.ID + " not found" }
func (e *BulkMissingError) Unwrap() error { return ErrBulkMissing }

// moveTx moves one of the member's lots inside tx, recording the transfer.
func (s *Store) moveTx(ctx context.Context, tx *sqlx.Tx, userID int64, holdingID string, to sql.NullString, on Date, note string, at time.Time) (Transfer, error) {
	t := Transfer{HoldingID: holdingID, ToLocationID: to, On: on, Note: note, CreatedAt: at}
	if err := tx.GetContext(ctx, &t.FromLocationID, tx.Rebind(`SELECT location_id FROM holdings WHERE id = ? AND user_id = ?`+s.forUpdate()), holdingID, userID); err != nil {
		if errors.Is(notFound(err), ErrNotFound) {
			return t, &BulkMissingError{ID: holdingID}
		}
		return t, err
	}
	if _, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE holdings SET location_id = ? WHERE id = ? AND user_id = ?`), to, holdingID, userID); err != nil {
		return t, err
	}
	err := tx.GetContext(ctx, &t.ID, tx.Rebind(`INSERT INTO holding_transfers (user_id, holding_id, from_location_id, to_location_id, moved_on, note, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`), userID, holdingID, t.FromLocationID, to, on, note, t.CreatedAt)
	return t, err
}

// BulkMoveHoldings moves each of the member's lots to to (null: unassigned), recording a
// transfer for each, in one transaction: an id that is not one of the member's lots is a
// *BulkMissingError naming it, an unknown location ErrNoSuchLocation, and then nothing moved.
func (s *Store) BulkMoveHoldings(ctx context.Context, userID int64, ids []string, to sql.NullString, on Date, note string) ([]Transfer, error) {
	out := make([]Transfer, 0, len(ids))
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if err := ownLocation(ctx, tx, userID, to); err != nil {
			return err
		}
		at := s.now()
		for _, id := range ids {
			t, err := s.moveTx(ctx, tx, userID, id, to, on, note, at)
			if err != nil {
				return err
			}
			out = append(out, t)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// BulkSetHoldingTags replaces the tags (joined by commas) of each of the member's lots named
// in tags, in one transaction: an id that is not one of theirs is a *BulkMissingError naming
// it, and then nothing changed.
func (s *Store) BulkSetHoldingTags(ctx context.Context, userID int64, ids []string, tags map[string]string) error {
	return s.WithTx(ctx, func(tx *sqlx.Tx) error {
		for _, id := range ids {
			res, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE holdings SET tags = ? WHERE id = ? AND user_id = ?`), tags[id], id, userID)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return &BulkMissingError{ID: id}
			}
		}
		return nil
	})
}

// TransfersByUser lists every transfer of the member's lots, by lot then oldest first (the
// ZIP export).
func (s *Store) TransfersByUser(ctx context.Context, userID int64) ([]Transfer, error) {
	out := []Transfer{}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT id, holding_id, from_location_id, to_location_id, moved_on, note, created_at
		FROM holding_transfers WHERE user_id = ? ORDER BY holding_id, moved_on, id`), userID)
	return out, err
}
