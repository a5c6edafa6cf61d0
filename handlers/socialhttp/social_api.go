package socialhttp

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/social"
)

// CommentJSON is the wire form of a comment: the author's display name, never their id.
type CommentJSON struct {
	ID        string    `json:"id"`
	Author    string    `json:"author" doc:"The author's display name."`
	Body      string    `json:"body" doc:"Plain text; show it escaped."`
	CreatedAt time.Time `json:"created_at"`
	// Hidden is only sent in moderation answers.
	Hidden *bool `json:"hidden,omitempty" doc:"Only in moderation answers."`
}

// ViewCountJSON answers POST …/view.
type ViewCountJSON struct {
	ViewCount int64 `json:"view_count" schema:"min=0"`
}

// LikeToggleJSON answers POST …/like.
type LikeToggleJSON struct {
	Liked     bool  `json:"liked"`
	LikeCount int64 `json:"like_count" schema:"min=0"`
}

// LikesJSON answers GET …/likes.
type LikesJSON struct {
	LikeCount int64 `json:"like_count" schema:"min=0"`
	UserLiked bool  `json:"user_liked"`
}

// CommentEnvelopeJSON answers the routes that post or moderate one comment.
type CommentEnvelopeJSON struct {
	Comment CommentJSON `json:"comment" schema:"ref=Comment"`
}

// CommentsPageJSON answers GET …/comments.
type CommentsPageJSON struct {
	Comments []CommentJSON `json:"comments" schema:"items.ref=Comment"`
	Limit    int           `json:"limit" schema:"min=0"`
	Offset   int           `json:"offset" schema:"min=0"`
	Total    int           `json:"total" schema:"min=0"`
}

// LikeBodyJSON documents the optional body of POST …/like.
type LikeBodyJSON struct {
	_      struct{} `schema:"closed"`
	UserID any      `json:"userId" schema:"optional,use=UserIDClaim"`
}

// CommentBodyJSON documents the body of POST …/comments.
type CommentBodyJSON struct {
	_      struct{} `schema:"closed"`
	Body   string   `json:"body" doc:"The comment, plain text."`
	UserID any      `json:"userId" schema:"optional,use=UserIDClaim"`
}

// ModerateBodyJSON documents the body of PATCH …/comments/{comment_id}.
type ModerateBodyJSON struct {
	_      struct{} `schema:"closed"`
	Hidden bool     `json:"hidden"`
}

func commentJSON(c social.Comment) CommentJSON {
	return CommentJSON{ID: c.ID, Author: c.Author, Body: c.Body, CreatedAt: c.CreatedAt.UTC()}
}

// visitorCookie is the first-party cookie that lets an anonymous browser's views count once a
// day: a random id signed by the server. It is no session: nothing is stored about it but a
// hash of its id per article viewed. One the server did not sign counts as none.
const visitorCookie = "ounce_vid"

// viewer is who is reading, as far as this request says, minting the visitor cookie for an
// anonymous browser that has no genuine one.
func (h *Handlers) viewer(c *fiber.Ctx) social.Viewer {
	v := social.Viewer{KeyID: kit.KeyIDFrom(c), Address: c.IP(), ClaimedUserID: c.Query("userId")}
	if u, ok := kit.UserFrom(c); ok {
		v.User = u
	}
	if v.KeyID != 0 || v.User.ID != 0 {
		return v
	}
	ctx := h.Ctx(c)
	if id := h.social.VisitorID(ctx, c.Cookies(visitorCookie)); id != "" {
		v.Visitor = id
		return v
	}
	cookie, id, err := h.social.NewVisitorCookie(ctx)
	if err != nil {
		// Counted under the address guard alone.
		h.Log.WarnContext(ctx, "minting a visitor cookie", "err", err, "request_id", kit.RequestID(c))
		return v
	}
	v.NewVisitor = id
	c.Cookie(&fiber.Cookie{Name: visitorCookie, Value: cookie, Path: "/", MaxAge: 180 * 24 * 3600,
		Expires: h.Now().Add(180 * 24 * time.Hour), Secure: h.https(), HTTPOnly: true, SameSite: fiber.CookieSameSiteLaxMode})
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	return v
}

// https reports whether the site is served over TLS (cookies are then Secure).
func (h *Handlers) https() bool { return strings.HasPrefix(h.Site.BaseURL, "https://") }

// APIArticleView answers POST /v1/stack-signal/articles/{id}/view.
func (h *Handlers) APIArticleView(c *fiber.Ctx) error {
	res, err := h.social.RecordView(h.Ctx(c), c.Params("id"), h.viewer(c))
	if err != nil {
		return err
	}
	return kit.WriteJSON(c, http.StatusOK, ViewCountJSON{ViewCount: res.Count})
}

// APIArticleLike answers POST /v1/stack-signal/articles/{id}/like.
func (h *Handlers) APIArticleLike(c *fiber.Ctx) error {
	_, claim, err := kit.ClaimBody(c, "userId")
	if err != nil {
		return err
	}
	st, err := h.social.ToggleLike(h.Ctx(c), kit.Caller(c), c.Params("id"), claim)
	if err != nil {
		return err
	}
	return kit.WriteJSON(c, http.StatusOK, LikeToggleJSON{Liked: st.Liked, LikeCount: st.Count})
}

// APIArticleLikes answers GET /v1/stack-signal/articles/{id}/likes.
func (h *Handlers) APIArticleLikes(c *fiber.Ctx) error {
	st, err := h.social.Likes(h.Ctx(c), kit.Caller(c), c.Params("id"), c.Query("userId"))
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "private, no-cache")
	return kit.WriteJSON(c, http.StatusOK, LikesJSON{LikeCount: st.Count, UserLiked: st.Liked})
}

// APICommentCreate answers POST /v1/stack-signal/articles/{id}/comments.
func (h *Handlers) APICommentCreate(c *fiber.Ctx) error {
	body, claim, err := kit.ClaimBody(c, "body", "userId")
	if err != nil {
		return err
	}
	raw, ok := body["body"]
	var text string
	if !ok || json.Unmarshal(raw, &text) != nil {
		return apperr.InvalidField("body", "must be a string (the comment's text)")
	}
	cm, err := h.social.PostComment(h.Ctx(c), kit.Caller(c), c.Params("id"), social.CommentInput{Body: text, ClaimedUserID: claim})
	if err != nil {
		return err
	}
	return kit.WriteJSON(c, http.StatusCreated, CommentEnvelopeJSON{Comment: commentJSON(cm)})
}

// APICommentList answers GET /v1/stack-signal/articles/{id}/comments.
func (h *Handlers) APICommentList(c *fiber.Ctx) error {
	limit, err := kit.QueryInt(c, "limit", social.DefaultCommentLimit, 1, social.MaxCommentLimit)
	if err != nil {
		return err
	}
	offset, err := kit.QueryInt(c, "offset", 0, 0, social.MaxCommentOffset)
	if err != nil {
		return err
	}
	p, err := h.social.Comments(h.Ctx(c), kit.Caller(c), c.Params("id"), social.CommentsQuery{Limit: limit, Offset: offset, ClaimedUserID: c.Query("userId")})
	if err != nil {
		return err
	}
	return kit.WriteJSON(c, http.StatusOK, CommentsPageJSON{Comments: kit.MapSlice(p.Comments, commentJSON), Limit: p.Limit, Offset: p.Offset, Total: p.Total})
}

// APICommentDelete answers DELETE /v1/stack-signal/articles/{id}/comments/{comment_id}.
func (h *Handlers) APICommentDelete(c *fiber.Ctx) error {
	if err := h.social.DeleteComment(h.Ctx(c), kit.Caller(c), c.Params("id"), c.Params("comment_id"), c.Query("userId")); err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}

// APICommentModerate answers PATCH /v1/stack-signal/articles/{id}/comments/{comment_id}.
func (h *Handlers) APICommentModerate(c *fiber.Ctx) error {
	body, err := kit.JSONObjectBody(c.Body(), "hidden")
	if err != nil {
		return err
	}
	var hidden bool
	if raw, ok := body["hidden"]; !ok || json.Unmarshal(raw, &hidden) != nil {
		return apperr.InvalidField("hidden", "must be true or false")
	}
	cm, err := h.social.SetCommentHidden(h.Ctx(c), kit.Caller(c), c.Params("id"), c.Params("comment_id"), hidden)
	if err != nil {
		return err
	}
	out := commentJSON(cm)
	out.Hidden = &cm.Hidden
	return kit.WriteJSON(c, http.StatusOK, CommentEnvelopeJSON{Comment: out})
}
