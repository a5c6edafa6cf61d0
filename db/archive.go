package db

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// ArchiveLocation is a location of an imported archive, matched to the member's by name.
type ArchiveLocation struct {
	Name, Kind, Notes string
	InsuredValue      sql.NullString
}

// ArchivePlace is where the imported holding at index Row is kept (Location indexes the
// archive's locations, -1 unassigned) and its tags joined by commas.
type ArchivePlace struct {
	Row      int
	Location int
	Tags     string
}

// ArchiveDocument is a checked document of the imported holding at index Row.
type ArchiveDocument struct {
	Row         int
	Name        string
	ContentType string
	Body        []byte
}

// ArchiveTransfer is one recorded move of the imported holding at index Row: From and To
// index the archive's locations (-1: unassigned, or a location since deleted).
type ArchiveTransfer struct {
	Row      int
	From, To int
	On       Date
	Note     string
}

// ImportArchive is ImportHoldingsWithSales with, in the same transaction, the archive's
// locations (one of the member's with the same name is reused), each holding's place and tags,
// its transfers (in the order given) and its documents (refused with ErrQuota past quota bytes in all). All or nothing: on any
// error no row is stored and no document file is left. Rows skipped as duplicates keep their
// place, tags and documents.
func (s *Store) ImportArchive(ctx context.Context, userID int64, rows []Holding, sales []ImportedSale, decide SaleRule, replay DisposalReplay,
	locs []ArchiveLocation, places []ArchivePlace, transfers []ArchiveTransfer, docs []ArchiveDocument, quota int64) (ImportResult, error) {
	var res ImportResult
	b := s.blob()
	var written []string
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		var uid int64
		if err := tx.GetContext(ctx, &uid, tx.Rebind(`SELECT id FROM users WHERE id = ?`+s.forUpdate()), userID); err != nil {
			return notFound(err)
		}
		r, ids, err := s.importTx(ctx, tx, userID, rows, sales, decide, replay)
		if err != nil {
			return err
		}
		res = r
		now := s.now()
		locIDs, err := archiveLocations(ctx, tx, userID, locs, now)
		if err != nil {
			return err
		}
		if err := archivePlaces(ctx, tx, userID, ids, locIDs, places); err != nil {
			return err
		}
		if err := archiveTransfers(ctx, tx, userID, ids, locIDs, transfers, now); err != nil {
			return err
		}
		return archiveDocuments(ctx, tx, b, userID, ids, docs, quota, now, &written)
	})
	if err != nil {
		if len(written) > 0 {
			_ = b.drop(ctx, userID, written) // files written before a failed commit
		}
		return ImportResult{}, err
	}
	return res, nil
}

// importedID is the id the imported holding at index row was stored with; ok is false for a
// row out of range or skipped as a duplicate.
func importedID(ids []string, row int) (string, bool) {
	if row < 0 || row >= len(ids) || ids[row] == "" {
		return "", false
	}
	return ids[row], true
}

// archiveLocID is the stored location of the archive's location at index i: NULL (unassigned)
// when i is out of range.
func archiveLocID(locIDs []string, i int) sql.NullString {
	if i < 0 || i >= len(locIDs) {
		return sql.NullString{}
	}
	return sql.NullString{String: locIDs[i], Valid: true}
}

// archiveLocations stores the archive's locations the member has no location of that name
// for, and returns the id of each (the member's own where the name matched).
func archiveLocations(ctx context.Context, tx *sqlx.Tx, userID int64, locs []ArchiveLocation, now time.Time) ([]string, error) {
	var have []Location
	if err := tx.SelectContext(ctx, &have, tx.Rebind(`SELECT `+locationCols+` FROM locations WHERE user_id = ?`), userID); err != nil {
		return nil, err
	}
	byName := map[string]string{}
	for _, l := range have {
		byName[l.Name] = l.ID
	}
	locIDs := make([]string, len(locs))
	for i, l := range locs {
		if id, ok := byName[l.Name]; ok {
			locIDs[i] = id
			continue
		}
		id := newID("loc_")
		if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO locations (`+locationCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
			id, userID, l.Name, l.Kind, l.InsuredValue, l.Notes, now, now); err != nil {
			return nil, fmt.Errorf("insert location: %w", err)
		}
		byName[l.Name], locIDs[i] = id, id
	}
	return locIDs, nil
}

// archivePlaces sets each stored imported holding's location and tags.
func archivePlaces(ctx context.Context, tx *sqlx.Tx, userID int64, ids, locIDs []string, places []ArchivePlace) error {
	for _, p := range places {
		id, ok := importedID(ids, p.Row)
		if !ok {
			continue
		}
		if _, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE holdings SET location_id = ?, tags = ? WHERE id = ? AND user_id = ?`),
			archiveLocID(locIDs, p.Location), p.Tags, id, userID); err != nil {
			return err
		}
	}
	return nil
}

// archiveTransfers records the stored imported holdings' moves, in the order given.
func archiveTransfers(ctx context.Context, tx *sqlx.Tx, userID int64, ids, locIDs []string, transfers []ArchiveTransfer, now time.Time) error {
	for _, t := range transfers {
		id, ok := importedID(ids, t.Row)
		if !ok {
			continue
		}
		if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO holding_transfers (user_id, holding_id, from_location_id, to_location_id, moved_on, note, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`), userID, id, archiveLocID(locIDs, t.From), archiveLocID(locIDs, t.To), t.On, t.Note, now); err != nil {
			return fmt.Errorf("insert transfer: %w", err)
		}
	}
	return nil
}

// archiveDocuments stores the stored imported holdings' documents, ErrQuota once the member's
// documents would pass quota bytes; each file written is added to written, for the caller to
// drop should the transaction fail.
func archiveDocuments(ctx context.Context, tx *sqlx.Tx, b Blob, userID int64, ids []string, docs []ArchiveDocument, quota int64, now time.Time, written *[]string) error {
	var used int64
	if err := tx.GetContext(ctx, &used, tx.Rebind(`SELECT COALESCE(SUM(size), 0) FROM documents WHERE user_id = ?`), userID); err != nil {
		return err
	}
	for i, d := range docs {
		holding, ok := importedID(ids, d.Row)
		if !ok {
			continue
		}
		if used += int64(len(d.Body)); used > quota {
			return ErrQuota
		}
		id := newID("doc_")
		// A microsecond apart, so the documents of a lot list in the archive's order.
		at := now.Add(time.Duration(i) * time.Microsecond)
		if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO documents (`+documentCols+`) VALUES (?, ?, ?, ?, ?, ?, ?)`),
			id, userID, holding, d.Name, d.ContentType, int64(len(d.Body)), at); err != nil {
			return err
		}
		*written = append(*written, id)
		if err := b.put(ctx, tx, userID, id, d.Body); err != nil {
			return err
		}
	}
	return nil
}
