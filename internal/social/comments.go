package social

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
)

// Comment is one comment as readers see it: the author's display name, never their id or
// email. Body is plain text, to be shown escaped and never as markup or links.
type Comment struct {
	ID        string
	ArticleID string
	Author    string
	Body      string
	CreatedAt time.Time
	Hidden    bool
	// Mine is true when the caller wrote it; CanDelete when the caller may delete it (its
	// author or an administrator).
	Mine      bool
	CanDelete bool
}

// CommentPage is one page of an article's shown comments, oldest first.
type CommentPage struct {
	ArticleID string
	Comments  []Comment
	Limit     int
	Offset    int
	Total     int
}

// CommentInput is a new comment.
type CommentInput struct {
	Body string
	// ClaimedUserID is the userId the client sent, if any.
	ClaimedUserID string
}

// CommentsQuery pages the comment list; zero Limit takes DefaultCommentLimit.
type CommentsQuery struct {
	Limit, Offset int
	// ClaimedUserID is the userId the client sent, if any.
	ClaimedUserID string
}

// CommentBody checks and normalises a comment's text: surrounding space trimmed, line breaks
// as \n, 1 to MaxCommentRunes characters, no control characters but line breaks and tabs, and
// no text-direction controls (Unprocessable, 422).
func CommentBody(raw string) (string, error) {
	if !utf8.ValidString(raw) {
		return "", apperr.InvalidField("body", "must be UTF-8 text")
	}
	b := strings.TrimSpace(strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(raw))
	n := utf8.RuneCountInString(b)
	switch {
	case n == 0:
		return "", apperr.InvalidField("body", "must not be empty")
	case n > MaxCommentRunes:
		return "", apperr.InvalidField("body", fmt.Sprintf("must be at most %s characters (this has %s)", group(MaxCommentRunes), group(n)))
	}
	if strings.IndexFunc(b, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }) >= 0 {
		return "", apperr.InvalidField("body", "must not contain control characters")
	}
	if account.HasBidiControl(b) {
		return "", account.ErrBidi("body")
	}
	return b, nil
}

// group writes n with thousands separators, as every page and message shows counts.
func group(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// PostComment adds the member's comment to the article (id or slug). Muted members get 403;
// past CommentsPerMinute in a minute or CommentsPerDay in a day, 429 saying when to retry.
func (s *Service) PostComment(ctx context.Context, u db.User, ref string, in CommentInput) (Comment, error) {
	if err := requireMember(u, "comment"); err != nil {
		return Comment{}, err
	}
	if err := checkClaim(u, in.ClaimedUserID); err != nil {
		return Comment{}, err
	}
	body, err := CommentBody(in.Body)
	if err != nil {
		return Comment{}, err
	}
	id, err := s.article(ctx, ref)
	if err != nil {
		return Comment{}, err
	}
	now := s.now()
	c, err := s.store.InsertComment(ctx, db.ArticleComment{ArticleID: id, UserID: u.ID, Body: body, CreatedAt: now}, now.Add(-24*time.Hour), CommentsPerDay,
		func(st db.CommenterState) error { return admitComment(now, st) })
	if err != nil {
		return Comment{}, articleErr(err)
	}
	return s.comment(u, c), nil
}

// admitComment is the mute and rate rule, given the author's comment times of the last day
// (newest first).
func admitComment(now time.Time, st db.CommenterState) error {
	if st.Muted {
		return apperr.ForbiddenF("an administrator has stopped you from commenting")
	}
	if len(st.Recent) >= CommentsPerDay {
		oldest := st.Recent[CommentsPerDay-1]
		return apperr.Limited(retryAfter(oldest.Add(24*time.Hour), now), "at most %d comments a day; try again later", CommentsPerDay)
	}
	if len(st.Recent) >= CommentsPerMinute {
		if fifth := st.Recent[CommentsPerMinute-1]; fifth.After(now.Add(-time.Minute)) {
			return apperr.Limited(retryAfter(fifth.Add(time.Minute), now), "at most %d comments a minute; wait a moment", CommentsPerMinute)
		}
	}
	return nil
}

// retryAfter is the wait until at, at least a second.
func retryAfter(at, now time.Time) time.Duration {
	if d := at.Sub(now); d > time.Second {
		return d
	}
	return time.Second
}

// Comments lists the article's shown comments, oldest first.
func (s *Service) Comments(ctx context.Context, u db.User, ref string, q CommentsQuery) (CommentPage, error) {
	if err := checkClaim(u, q.ClaimedUserID); err != nil {
		return CommentPage{}, err
	}
	if q.Limit == 0 {
		q.Limit = DefaultCommentLimit
	}
	if q.Limit < 1 || q.Limit > MaxCommentLimit {
		return CommentPage{}, apperr.InvalidField("limit", fmt.Sprintf("must be between 1 and %d", MaxCommentLimit))
	}
	if q.Offset < 0 || q.Offset > MaxCommentOffset {
		return CommentPage{}, apperr.InvalidField("offset", fmt.Sprintf("must be between 0 and %d", MaxCommentOffset))
	}
	id, err := s.article(ctx, ref)
	if err != nil {
		return CommentPage{}, err
	}
	rows, total, err := s.store.CommentsOfArticle(ctx, id, q.Limit, q.Offset)
	if err != nil {
		return CommentPage{}, err
	}
	out := CommentPage{ArticleID: id, Comments: make([]Comment, len(rows)), Limit: q.Limit, Offset: q.Offset, Total: total}
	for i, r := range rows {
		out.Comments[i] = s.comment(u, r)
	}
	return out, nil
}

// comment is the readers' view of a stored comment for caller u.
func (s *Service) comment(u db.User, c db.ArticleComment) Comment {
	mine := u.ID != 0 && u.ID == c.UserID
	return Comment{ID: c.ID, ArticleID: c.ArticleID, Author: account.DisplayName(db.User{ID: c.UserID, DisplayName: c.AuthorName}),
		Body: c.Body, CreatedAt: c.CreatedAt, Hidden: c.Hidden, Mine: mine, CanDelete: mine || (u.ID != 0 && account.IsAdmin(u))}
}

// ownComment finds a live comment of the article (id or slug) that u may act on: their own,
// or any for an administrator. Anything else is "comment not found", so nobody learns what
// others wrote by probing ids.
func (s *Service) ownComment(ctx context.Context, u db.User, ref, commentID string) (string, error) {
	id, err := s.article(ctx, ref)
	if err != nil {
		return "", err
	}
	if commentID == "" || len(commentID) > maxRef {
		return "", apperr.NotFoundf("comment")
	}
	c, err := s.store.CommentByID(ctx, commentID)
	if errors.Is(err, db.ErrNotFound) || err == nil && (c.ArticleID != id || c.DeletedAt.Valid || (c.UserID != u.ID && !account.IsAdmin(u))) {
		return "", apperr.NotFoundf("comment")
	}
	return id, err
}

// DeleteComment deletes a comment by its author or an administrator; for anyone else it does
// not exist.
func (s *Service) DeleteComment(ctx context.Context, u db.User, ref, commentID, claimedUserID string) error {
	if err := requireMember(u, "delete comments"); err != nil {
		return err
	}
	if err := checkClaim(u, claimedUserID); err != nil {
		return err
	}
	id, err := s.ownComment(ctx, u, ref, commentID)
	if err != nil {
		return err
	}
	if err := s.store.DeleteComment(ctx, id, commentID); errors.Is(err, db.ErrNotFound) {
		return apperr.NotFoundf("comment")
	} else if err != nil {
		return err
	}
	return nil
}

// SetCommentHidden hides a comment from readers (or shows it again); administrators only.
func (s *Service) SetCommentHidden(ctx context.Context, u db.User, ref, commentID string, hidden bool) (Comment, error) {
	if err := requireMember(u, "moderate comments"); err != nil {
		return Comment{}, err
	}
	if err := account.RequireAdmin(u); err != nil {
		return Comment{}, err
	}
	id, err := s.ownComment(ctx, u, ref, commentID)
	if err != nil {
		return Comment{}, err
	}
	c, err := s.store.SetCommentHidden(ctx, id, commentID, hidden)
	if errors.Is(err, db.ErrNotFound) {
		return Comment{}, apperr.NotFoundf("comment")
	}
	if err != nil {
		return Comment{}, err
	}
	return s.comment(u, c), nil
}

// SetMuted stops (or lets again) the member with that email from commenting; for the CLI.
func (s *Service) SetMuted(ctx context.Context, email string, muted bool) (db.User, error) {
	u, err := s.store.UserByEmail(ctx, email)
	if errors.Is(err, db.ErrNotFound) {
		return db.User{}, apperr.Wrap(apperr.NotFound, err, "account not found")
	}
	if err != nil {
		return db.User{}, err
	}
	return u, s.store.SetCommentMute(ctx, u.ID, muted)
}

// Muted reports whether the member may not comment (pages hide the form then).
func (s *Service) Muted(ctx context.Context, u db.User) (bool, error) {
	if u.ID == 0 {
		return false, nil
	}
	return s.store.CommentMuted(ctx, u.ID)
}
