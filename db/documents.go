package db

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"
)

// Document is a file attached to a lot (a receipt, a certificate, a photo of the coin); its
// bytes are kept by the store's Blob.
type Document struct {
	ID          string    `db:"id"`
	UserID      int64     `db:"user_id"`
	HoldingID   string    `db:"holding_id"`
	Name        string    `db:"name"`
	ContentType string    `db:"content_type"`
	Size        int64     `db:"size"`
	CreatedAt   time.Time `db:"created_at"`
}

// ErrQuota is an upload past the member's storage allowance.
var ErrQuota = errors.New("document storage allowance reached")

// Blob keeps documents' bytes: files under the data directory on SQLite (the database stays
// small), rows of document_blobs on PostgreSQL (so every instance sees them). Put runs inside
// the transaction that stores the document's row; drop runs after a commit that deleted rows.
type Blob interface {
	put(ctx context.Context, tx *sqlx.Tx, userID int64, id string, body []byte) error
	get(ctx context.Context, userID int64, id string) ([]byte, error)
	// drop removes the bytes of documents whose rows are gone (ids, or every one of the
	// member's that no row names when ids is nil).
	drop(ctx context.Context, userID int64, ids []string) error
}

// blob is the store's Blob.
func (s *Store) blob() Blob {
	if s.Engine == Postgres {
		return pgBlob{s: s}
	}
	return fileBlob{s: s}
}

type pgBlob struct{ s *Store }

func (pgBlob) put(ctx context.Context, tx *sqlx.Tx, userID int64, id string, body []byte) error {
	_, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO document_blobs (document_id, user_id, body) VALUES (?, ?, ?)`), id, userID, body)
	return err
}

func (p pgBlob) get(ctx context.Context, userID int64, id string) ([]byte, error) {
	var body []byte
	err := p.s.db.GetContext(ctx, &body, p.s.rebind(`SELECT body FROM document_blobs WHERE document_id = ? AND user_id = ?`), id, userID)
	return body, notFound(err)
}

// drop: the rows cascade with their documents.
func (pgBlob) drop(context.Context, int64, []string) error { return nil }

type fileBlob struct{ s *Store }

// userDir is where a member's document files are kept.
func (f fileBlob) userDir(userID int64) (string, error) {
	if f.s.dir == "" {
		return "", errors.New("documents need an SQLite database on disk (its directory keeps them)")
	}
	return filepath.Join(f.s.dir, "documents", strconv.FormatInt(userID, 10)), nil
}

func (f fileBlob) put(_ context.Context, _ *sqlx.Tx, userID int64, id string, body []byte) error {
	dir, err := f.userDir(userID)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp := filepath.Join(dir, id+".tmp")
	if err := os.WriteFile(tmp, body, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, id))
}

func (f fileBlob) get(_ context.Context, userID int64, id string) ([]byte, error) {
	dir, err := f.userDir(userID)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(filepath.Join(dir, filepath.Base(id)))
}

func (f fileBlob) drop(ctx context.Context, userID int64, ids []string) error {
	dir, err := f.userDir(userID)
	if err != nil {
		return nil // nothing was ever stored
	}
	if ids == nil {
		var keep []string
		if err := f.s.db.SelectContext(ctx, &keep, f.s.rebind(`SELECT id FROM documents WHERE user_id = ?`), userID); err != nil {
			return err
		}
		if len(keep) == 0 {
			return os.RemoveAll(dir)
		}
		kept := map[string]bool{}
		for _, k := range keep {
			kept[k] = true
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil
		}
		for _, e := range entries {
			// A file younger than a minute may be an upload whose row is not committed yet.
			if info, err := e.Info(); err == nil && !kept[e.Name()] && time.Since(info.ModTime()) > time.Minute {
				ids = append(ids, e.Name())
			}
		}
	}
	var errs []error
	for _, id := range ids {
		if err := os.Remove(filepath.Join(dir, filepath.Base(id))); err != nil && !os.IsNotExist(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

const documentCols = `id, user_id, holding_id, name, content_type, size, created_at`

// InsertDocument stores a document of the member's lot with its bytes, refusing (ErrQuota)
// one that would take the member's documents past quota bytes; an unknown lot is ErrNotFound.
func (s *Store) InsertDocument(ctx context.Context, d Document, body []byte, quota int64) (Document, error) {
	d.ID, d.CreatedAt, d.Size = newID("doc_"), s.now(), int64(len(body))
	b := s.blob()
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		// The member's row is locked so two uploads cannot both pass the allowance.
		var uid int64
		if err := tx.GetContext(ctx, &uid, tx.Rebind(`SELECT id FROM users WHERE id = ?`+s.forUpdate()), d.UserID); err != nil {
			return notFound(err)
		}
		var hid string
		if err := tx.GetContext(ctx, &hid, tx.Rebind(`SELECT id FROM holdings WHERE id = ? AND user_id = ?`), d.HoldingID, d.UserID); err != nil {
			return notFound(err)
		}
		var used int64
		if err := tx.GetContext(ctx, &used, tx.Rebind(`SELECT COALESCE(SUM(size), 0) FROM documents WHERE user_id = ?`), d.UserID); err != nil {
			return err
		}
		if used+d.Size > quota {
			return ErrQuota
		}
		if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO documents (`+documentCols+`) VALUES (?, ?, ?, ?, ?, ?, ?)`),
			d.ID, d.UserID, d.HoldingID, d.Name, d.ContentType, d.Size, d.CreatedAt); err != nil {
			return err
		}
		return b.put(ctx, tx, d.UserID, d.ID, body)
	})
	if err != nil {
		_ = b.drop(ctx, d.UserID, []string{d.ID}) // a file written before a failed commit
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrQuota) {
			return Document{}, err
		}
		return Document{}, fmt.Errorf("insert document: %w", err)
	}
	return d, nil
}

// DocumentByID is the member's document; anyone else's is ErrNotFound.
func (s *Store) DocumentByID(ctx context.Context, userID int64, id string) (Document, error) {
	return memberRow[Document](ctx, s, documentCols, "documents", userID, id)
}

// DocumentBody is the bytes of the member's document.
func (s *Store) DocumentBody(ctx context.Context, userID int64, id string) ([]byte, error) {
	if _, err := s.DocumentByID(ctx, userID, id); err != nil {
		return nil, err
	}
	return s.blob().get(ctx, userID, id)
}

// DocumentsOf lists the documents of the member's lot, oldest first.
func (s *Store) DocumentsOf(ctx context.Context, userID int64, holdingID string) ([]Document, error) {
	out := []Document{}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT `+documentCols+` FROM documents WHERE holding_id = ? AND user_id = ? ORDER BY created_at, id`), holdingID, userID)
	return out, err
}

// DocumentsByUser lists every document of the member (the export and the statement).
func (s *Store) DocumentsByUser(ctx context.Context, userID int64) ([]Document, error) {
	out := []Document{}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT `+documentCols+` FROM documents WHERE user_id = ? ORDER BY holding_id, created_at, id`), userID)
	return out, err
}

// DeleteDocument removes the member's document and its bytes.
func (s *Store) DeleteDocument(ctx context.Context, userID int64, id string) error {
	if err := s.deleteMemberRow(ctx, "document", "documents", userID, id); err != nil {
		return err
	}
	return s.blob().drop(ctx, userID, []string{id})
}

// dropOrphanBlobs removes the bytes of the member's documents whose rows went with a lot or
// the account (rows cascade; files under the data directory do not).
func (s *Store) dropOrphanBlobs(ctx context.Context, userID int64) {
	_ = s.blob().drop(ctx, userID, nil)
}

// dropHoldingBlobs notes the files of a lot's documents now, and returns what removes those
// whose rows are gone (call it after the lot's deletion).
func (s *Store) dropHoldingBlobs(ctx context.Context, userID int64, holdingID string) func() {
	if s.Engine == Postgres {
		return func() {}
	}
	var ids []string
	if err := s.db.SelectContext(ctx, &ids, s.rebind(`SELECT id FROM documents WHERE holding_id = ? AND user_id = ?`), holdingID, userID); err != nil || len(ids) == 0 {
		return func() {}
	}
	return func() {
		var left int
		if err := s.db.GetContext(ctx, &left, s.rebind(`SELECT count(*) FROM documents WHERE holding_id = ? AND user_id = ?`), holdingID, userID); err == nil && left == 0 {
			_ = s.blob().drop(ctx, userID, ids)
		}
	}
}
