package social

import (
	"context"
	"time"

	"github.com/ouncehq/ounce/db"
)

// Store is what the social service uses of the storage: its reach, declared where it is used.
// *db.Store satisfies it (the composition root passes that).
type Store interface {
	ArticleIDByRef(ctx context.Context, ref string) (string, error)
	CommentByID(ctx context.Context, id string) (db.ArticleComment, error)
	CommentMuted(ctx context.Context, userID int64) (bool, error)
	CommentsOfArticle(ctx context.Context, articleID string, limit, offset int) ([]db.ArticleComment, int, error)
	DeleteComment(ctx context.Context, articleID, id string) error
	InsertComment(ctx context.Context, c db.ArticleComment, since time.Time, maxRecent int, admit func(db.CommenterState) error) (db.ArticleComment, error)
	LikeState(ctx context.Context, articleID string, userID int64) (count int64, liked bool, err error)
	PruneViews(ctx context.Context, before db.Date, guardsBefore time.Time) (int64, error)
	RecordAnonymousView(ctx context.Context, articleID string, v db.AnonymousView) (count int64, counted bool, err error)
	RecordView(ctx context.Context, articleID, viewer string, day db.Date) (count int64, counted bool, err error)
	RunAsLeader(ctx context.Context, key int64, retry time.Duration, lead func(ctx context.Context))
	Secret(ctx context.Context, name string, fresh func() string) (string, error)
	SetCommentHidden(ctx context.Context, articleID, id string, hidden bool) (db.ArticleComment, error)
	SetCommentMute(ctx context.Context, userID int64, muted bool) error
	ToggleLike(ctx context.Context, articleID string, userID int64) (liked bool, count int64, err error)
	UserByEmail(ctx context.Context, email string) (db.User, error)
}

var _ Store = (*db.Store)(nil)
