package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// The social side of Stack Signal articles: likes, comments, views and comment mutes.
// like_count and comment_count are kept by triggers (migration 0008) in the transaction that
// changes their rows, including cascades from deleted accounts; view_count is kept here beside
// article_views. Writes lock the article row first, so a member's toggles run one after
// another and every counter equals its rows however many requests race.

// ArticleIDByRef resolves an article reference, its id or its slug, to the id.
func (s *Store) ArticleIDByRef(ctx context.Context, ref string) (string, error) {
	var id string
	err := s.db.GetContext(ctx, &id, s.rebind(`SELECT id FROM articles WHERE id = ?`), ref)
	if errors.Is(err, sql.ErrNoRows) {
		err = s.db.GetContext(ctx, &id, s.rebind(`SELECT id FROM articles WHERE slug = ?`), ref)
	}
	return id, notFound(err)
}

// lockArticle takes the article row's write lock for the rest of tx (PostgreSQL; an SQLite
// transaction already holds the database's write lock from BEGIN IMMEDIATE) and returns its
// counters. A missing article is ErrNotFound. FOR NO KEY UPDATE leaves the KEY SHARE locks of
// foreign-key checks on other rows free.
func (s *Store) lockArticle(ctx context.Context, tx *sqlx.Tx, id string) (likes, comments, views int64, err error) {
	q := `SELECT like_count, comment_count, view_count FROM articles WHERE id = ?`
	if s.Engine == Postgres {
		q += ` FOR NO KEY UPDATE`
	}
	err = tx.QueryRowxContext(ctx, tx.Rebind(q), id).Scan(&likes, &comments, &views)
	return likes, comments, views, notFound(err)
}

// ToggleLike likes the article for the user, or takes the like back when there is one, and
// returns the new state and count. Toggles of one article run one after another.
func (s *Store) ToggleLike(ctx context.Context, articleID string, userID int64) (liked bool, count int64, err error) {
	err = s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if _, _, _, err := s.lockArticle(ctx, tx, articleID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM article_likes WHERE article_id = ? AND user_id = ?`), articleID, userID)
		if err != nil {
			return fmt.Errorf("unlike: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO article_likes (article_id, user_id, created_at) VALUES (?, ?, ?)`), articleID, userID, s.now()); err != nil {
				return fmt.Errorf("like: %w", err)
			}
			liked = true
		}
		// The trigger has counted the change.
		return tx.GetContext(ctx, &count, tx.Rebind(`SELECT like_count FROM articles WHERE id = ?`), articleID)
	})
	return liked, count, err
}

// LikeState is the article's like count and whether the user likes it (false for user 0).
func (s *Store) LikeState(ctx context.Context, articleID string, userID int64) (count int64, liked bool, err error) {
	if err = s.db.GetContext(ctx, &count, s.rebind(`SELECT like_count FROM articles WHERE id = ?`), articleID); err != nil {
		return 0, false, notFound(err)
	}
	if userID == 0 {
		return count, false, nil
	}
	var n int
	err = s.db.GetContext(ctx, &n, s.rebind(`SELECT count(*) FROM article_likes WHERE article_id = ? AND user_id = ?`), articleID, userID)
	return count, n > 0, err
}

// RecordView counts a view of the article on day by viewer, once per viewer and day: a viewer
// already counted that day leaves the count as it is (counted false).
func (s *Store) RecordView(ctx context.Context, articleID, viewer string, day Date) (count int64, counted bool, err error) {
	err = s.WithTx(ctx, func(tx *sqlx.Tx) error {
		_, _, views, err := s.lockArticle(ctx, tx, articleID)
		if err != nil {
			return err
		}
		if counted, err = s.rememberViewer(ctx, tx, articleID, viewer, day); err != nil || !counted {
			count = views
			return err
		}
		return tx.GetContext(ctx, &count, tx.Rebind(`UPDATE articles SET view_count = view_count + 1 WHERE id = ? RETURNING view_count`), articleID)
	})
	return count, counted, err
}

// rememberViewer records viewer for the article and day, reporting whether it is new.
func (s *Store) rememberViewer(ctx context.Context, tx *sqlx.Tx, articleID, viewer string, day Date) (bool, error) {
	res, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO article_views (article_id, day, viewer) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`), articleID, day, viewer)
	if err != nil {
		return false, fmt.Errorf("record viewer: %w", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// AnonymousView is a view by a client with no identity, known only by a keyed hash of its
// address.
type AnonymousView struct {
	AddressHash string
	// Window is how long after a counted view the same address does not count again.
	Window time.Duration
	// Remember, when set, is the viewer key of the cookie the client is being given: when the
	// view counts, that viewer is recorded for the day so its next visit does not count again.
	Remember string
	Day      Date
	// At is the time of the view (the store's clock when zero).
	At time.Time
}

// RecordAnonymousView counts the view unless the same address had a view of the article
// counted within the window. Guard rows older than the window are pruned by PruneViews.
func (s *Store) RecordAnonymousView(ctx context.Context, articleID string, v AnonymousView) (count int64, counted bool, err error) {
	now := v.At.UTC().Truncate(time.Microsecond)
	if v.At.IsZero() {
		now = s.now()
	}
	err = s.WithTx(ctx, func(tx *sqlx.Tx) error {
		_, _, views, err := s.lockArticle(ctx, tx, articleID)
		if err != nil {
			return err
		}
		var last time.Time
		err = tx.GetContext(ctx, &last, tx.Rebind(`SELECT last_at FROM article_view_guards WHERE article_id = ? AND address = ?`), articleID, v.AddressHash)
		switch {
		case err == nil && last.After(now.Add(-v.Window)):
			count = views
			return nil
		case err != nil && !errors.Is(err, sql.ErrNoRows):
			return err
		}
		if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO article_view_guards (article_id, address, last_at) VALUES (?, ?, ?)
			ON CONFLICT (article_id, address) DO UPDATE SET last_at = excluded.last_at`), articleID, v.AddressHash, now); err != nil {
			return fmt.Errorf("view guard: %w", err)
		}
		if v.Remember != "" {
			if _, err := s.rememberViewer(ctx, tx, articleID, v.Remember, v.Day); err != nil {
				return err
			}
		}
		counted = true
		return tx.GetContext(ctx, &count, tx.Rebind(`UPDATE articles SET view_count = view_count + 1 WHERE id = ? RETURNING view_count`), articleID)
	})
	return count, counted, err
}

// ViewCount is the article's view count.
func (s *Store) ViewCount(ctx context.Context, articleID string) (int64, error) {
	var n int64
	err := s.db.GetContext(ctx, &n, s.rebind(`SELECT view_count FROM articles WHERE id = ?`), articleID)
	return n, notFound(err)
}

// PruneViews forgets who viewed articles before day and address guards older than guardsBefore;
// the counts stay.
func (s *Store) PruneViews(ctx context.Context, before Date, guardsBefore time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, s.rebind(`DELETE FROM article_views WHERE day < ?`), before)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	res, err = s.db.ExecContext(ctx, s.rebind(`DELETE FROM article_view_guards WHERE last_at < ?`), guardsBefore.UTC())
	if err != nil {
		return n, err
	}
	m, _ := res.RowsAffected()
	return n + m, nil
}

// ArticleComment is one comment on an article, with its author's chosen display name.
type ArticleComment struct {
	ID        string       `db:"id"`
	ArticleID string       `db:"article_id"`
	UserID    int64        `db:"user_id"`
	Body      string       `db:"body"`
	Hidden    bool         `db:"hidden"`
	DeletedAt sql.NullTime `db:"deleted_at"`
	CreatedAt time.Time    `db:"created_at"`
	// AuthorName is users.display_name (empty when the member never set one).
	AuthorName string `db:"author_name"`
}

const commentCols = `c.id, c.article_id, c.user_id, c.body, c.hidden, c.deleted_at, c.created_at, u.display_name AS author_name`

// CommenterState is what the comment rules need to know about an author at the moment of
// writing: whether they are muted, and when they wrote their recent comments (newest first,
// deleted ones included, since the window CommentsSince asked for).
type CommenterState struct {
	Muted  bool
	Recent []time.Time
}

// InsertComment stores a comment (counted on its article by the trigger). admit runs
// inside the transaction, after the author's earlier comments are serialised behind a lock
// on their account, with the author's state since `since`; an error from it stores nothing
// and is returned as it is. ID is filled, and CreatedAt when zero (the service passes the
// time its rules were judged at, so the rule and the stored time share one clock).
func (s *Store) InsertComment(ctx context.Context, c ArticleComment, since time.Time, maxRecent int, admit func(CommenterState) error) (ArticleComment, error) {
	c.ID = newID("c_")
	if c.CreatedAt.IsZero() {
		c.CreatedAt = s.now()
	}
	c.CreatedAt = c.CreatedAt.UTC().Truncate(time.Microsecond)
	c.Hidden, c.DeletedAt = false, sql.NullTime{}
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		lockUser := `SELECT display_name FROM users WHERE id = ?`
		if s.Engine == Postgres {
			// One member's comments are admitted one at a time, so concurrent posts cannot all
			// slip under the limit.
			lockUser += ` FOR NO KEY UPDATE`
		}
		if err := tx.GetContext(ctx, &c.AuthorName, tx.Rebind(lockUser), c.UserID); err != nil {
			return notFound(err)
		}
		var st CommenterState
		var n int
		if err := tx.GetContext(ctx, &n, tx.Rebind(`SELECT count(*) FROM comment_mutes WHERE user_id = ?`), c.UserID); err != nil {
			return err
		}
		st.Muted = n > 0
		if err := tx.SelectContext(ctx, &st.Recent, tx.Rebind(`SELECT created_at FROM article_comments WHERE user_id = ? AND created_at > ?
			ORDER BY created_at DESC LIMIT ?`), c.UserID, since.UTC(), maxRecent); err != nil {
			return err
		}
		if err := admit(st); err != nil {
			return err
		}
		if _, _, _, err := s.lockArticle(ctx, tx, c.ArticleID); err != nil {
			return err
		}
		// The article row is locked, so the next number is this transaction's alone.
		if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO article_comments (id, article_id, seq, user_id, body, hidden, created_at)
			VALUES (?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM article_comments WHERE article_id = ?), ?, ?, FALSE, ?)`),
			c.ID, c.ArticleID, c.ArticleID, c.UserID, c.Body, c.CreatedAt); err != nil {
			return fmt.Errorf("insert comment: %w", err)
		}
		return nil
	})
	if err != nil {
		return ArticleComment{}, err
	}
	return c, nil
}

// CommentsOfArticle lists the article's shown comments (neither hidden nor deleted), oldest
// first, with how many there are in all.
func (s *Store) CommentsOfArticle(ctx context.Context, articleID string, limit, offset int) ([]ArticleComment, int, error) {
	var total int
	if err := s.db.GetContext(ctx, &total, s.rebind(`SELECT count(*) FROM article_comments
		WHERE article_id = ? AND hidden = FALSE AND deleted_at IS NULL`), articleID); err != nil {
		return nil, 0, err
	}
	out := []ArticleComment{}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT `+commentCols+` FROM article_comments c JOIN users u ON u.id = c.user_id
		WHERE c.article_id = ? AND c.hidden = FALSE AND c.deleted_at IS NULL
		ORDER BY c.seq LIMIT ? OFFSET ?`), articleID, limit, offset)
	return out, total, err
}

// CommentByID returns one comment, deleted or not.
func (s *Store) CommentByID(ctx context.Context, id string) (ArticleComment, error) {
	var c ArticleComment
	err := s.db.GetContext(ctx, &c, s.rebind(`SELECT `+commentCols+` FROM article_comments c JOIN users u ON u.id = c.user_id WHERE c.id = ?`), id)
	return c, notFound(err)
}

// DeleteComment empties the comment and marks it deleted (the trigger uncounts it when it
// was shown). An already deleted or missing comment is ErrNotFound.
func (s *Store) DeleteComment(ctx context.Context, articleID, id string) error {
	return s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if _, _, _, err := s.lockArticle(ctx, tx, articleID); err != nil {
			return err
		}
		return oneRow(tx.ExecContext(ctx, tx.Rebind(`UPDATE article_comments SET body = '', deleted_at = ?
			WHERE id = ? AND article_id = ? AND deleted_at IS NULL`), s.now(), id, articleID))
	})
}

// SetCommentHidden hides or shows a comment (the trigger keeps comment_count to the shown
// ones). A
// deleted or missing comment is ErrNotFound; setting the state it already has changes nothing.
func (s *Store) SetCommentHidden(ctx context.Context, articleID, id string, hidden bool) (ArticleComment, error) {
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if _, _, _, err := s.lockArticle(ctx, tx, articleID); err != nil {
			return err
		}
		var was bool
		if err := tx.GetContext(ctx, &was, tx.Rebind(`SELECT hidden FROM article_comments WHERE id = ? AND article_id = ? AND deleted_at IS NULL`), id, articleID); err != nil {
			return notFound(err)
		}
		if was == hidden {
			return nil
		}
		_, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE article_comments SET hidden = ? WHERE id = ?`), hidden, id)
		return err
	})
	if err != nil {
		return ArticleComment{}, err
	}
	return s.CommentByID(ctx, id)
}

// SetCommentMute stops (muted) or lets again (not muted) a member write comments.
func (s *Store) SetCommentMute(ctx context.Context, userID int64, muted bool) error {
	var err error
	if muted {
		_, err = s.db.ExecContext(ctx, s.rebind(`INSERT INTO comment_mutes (user_id, muted_at) VALUES (?, ?) ON CONFLICT DO NOTHING`), userID, s.now())
	} else {
		_, err = s.db.ExecContext(ctx, s.rebind(`DELETE FROM comment_mutes WHERE user_id = ?`), userID)
	}
	return err
}

// CommentMuted reports whether the member is stopped from commenting.
func (s *Store) CommentMuted(ctx context.Context, userID int64) (bool, error) {
	var n int
	err := s.db.GetContext(ctx, &n, s.rebind(`SELECT count(*) FROM comment_mutes WHERE user_id = ?`), userID)
	return n > 0, err
}

// SocialRows counts the rows behind an article's counters (likes, shown comments), to check
// the counters against them.
func (s *Store) SocialRows(ctx context.Context, articleID string) (likes, comments int64, err error) {
	if err = s.db.GetContext(ctx, &likes, s.rebind(`SELECT count(*) FROM article_likes WHERE article_id = ?`), articleID); err != nil {
		return 0, 0, err
	}
	err = s.db.GetContext(ctx, &comments, s.rebind(`SELECT count(*) FROM article_comments WHERE article_id = ? AND hidden = FALSE AND deleted_at IS NULL`), articleID)
	return likes, comments, err
}
