package handlers

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/social"
)

// CommentJSON is the wire form of a comment: the author's display name, never their id.
type CommentJSON struct {
	ID        string    `json:"id"`
	Author    string    `json:"author"`
	Body      string    `json:"body"`
	CreatedAt time.Time `json:"created_at"`
	// Hidden is only sent in moderation answers.
	Hidden *bool `json:"hidden,omitempty"`
}

func commentJSON(c social.Comment) CommentJSON {
	return CommentJSON{ID: c.ID, Author: c.Author, Body: c.Body, CreatedAt: c.CreatedAt.UTC()}
}

// maxSocialBody bounds a comment or like request body.
const maxSocialBody = 64 << 10

// visitorCookie is the random first-party cookie that lets an anonymous browser's views count
// once a day. It is no session: nothing is stored about it but a hash of it per article viewed.
const visitorCookie = "ounce_vid"

var visitorPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{22}$`)

// viewer is who is reading, as far as this request says, minting the visitor cookie for an
// anonymous browser that has none.
func (h *Handlers) viewer(c *fiber.Ctx) social.Viewer {
	v := social.Viewer{KeyID: KeyIDFrom(c), Address: c.IP(), ClaimedUserID: c.Query("userId")}
	if u, ok := UserFrom(c); ok {
		v.User = u
	}
	if v.KeyID != 0 || v.User.ID != 0 {
		return v
	}
	if ck := c.Cookies(visitorCookie); visitorPattern.MatchString(ck) {
		v.Visitor = ck
		return v
	}
	v.NewVisitor = randomVisitorID()
	c.Cookie(&fiber.Cookie{Name: visitorCookie, Value: v.NewVisitor, Path: "/", MaxAge: 180 * 24 * 3600,
		Expires: h.now().Add(180 * 24 * time.Hour), Secure: h.https(), HTTPOnly: true, SameSite: fiber.CookieSameSiteLaxMode})
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	return v
}

// https reports whether the site is served over TLS (cookies are then Secure).
func (h *Handlers) https() bool { return strings.HasPrefix(h.cfg.BaseURL, "https://") }

// socialBody reads an optional JSON object whose members are all among allowed. An empty
// body is an empty object.
func socialBody(raw []byte, allowed ...string) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	if len(raw) > maxSocialBody {
		return nil, apperr.New(apperr.TooLarge, "body larger than %d bytes", maxSocialBody)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return out, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil || out == nil {
		return nil, apperr.InvalidField("body", "must be a JSON object")
	}
	if dec.More() {
		return nil, apperr.InvalidField("body", "must hold exactly one JSON object")
	}
	for k := range out {
		if !slices.Contains(allowed, k) {
			return nil, apperr.InvalidField(k, "unknown field")
		}
	}
	return out, nil
}

// claimedUserID is the userId a client sent in the body (a string or an integer) or the
// query. When both are sent and differ, the answer matches no id, so the service refuses it.
func claimedUserID(c *fiber.Ctx, body map[string]json.RawMessage) (string, error) {
	q := c.Query("userId")
	raw, ok := body["userId"]
	if !ok || string(raw) == "null" {
		return q, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		var n json.Number
		if err := json.Unmarshal(raw, &n); err != nil {
			return "", apperr.InvalidField("userId", "must be your user id, as a string or an integer")
		}
		s = n.String()
	}
	if q != "" && q != s {
		return q + "," + s, nil
	}
	return s, nil
}

// caller is the authenticated user, or the zero User for a visitor.
func caller(c *fiber.Ctx) db.User {
	u, _ := UserFrom(c)
	return u
}

// randomVisitorID is a new visitor cookie value: 128 random bits.
func randomVisitorID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // the OS random source failing is not recoverable
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// APIArticleView answers POST /v1/stack-signal/articles/{id}/view.
func (h *Handlers) APIArticleView(c *fiber.Ctx) error {
	res, err := h.social.RecordView(h.ctx(c), c.Params("id"), h.viewer(c))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, fiber.Map{"view_count": res.Count})
}

// APIArticleLike answers POST /v1/stack-signal/articles/{id}/like.
func (h *Handlers) APIArticleLike(c *fiber.Ctx) error {
	body, err := socialBody(c.Body(), "userId")
	if err != nil {
		return err
	}
	claim, err := claimedUserID(c, body)
	if err != nil {
		return err
	}
	st, err := h.social.ToggleLike(h.ctx(c), caller(c), c.Params("id"), claim)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, fiber.Map{"liked": st.Liked, "like_count": st.Count})
}

// APIArticleLikes answers GET /v1/stack-signal/articles/{id}/likes.
func (h *Handlers) APIArticleLikes(c *fiber.Ctx) error {
	st, err := h.social.Likes(h.ctx(c), caller(c), c.Params("id"), c.Query("userId"))
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "private, no-cache")
	return writeJSON(c, http.StatusOK, fiber.Map{"like_count": st.Count, "user_liked": st.Liked})
}

// APICommentCreate answers POST /v1/stack-signal/articles/{id}/comments.
func (h *Handlers) APICommentCreate(c *fiber.Ctx) error {
	body, err := socialBody(c.Body(), "body", "userId")
	if err != nil {
		return err
	}
	claim, err := claimedUserID(c, body)
	if err != nil {
		return err
	}
	raw, ok := body["body"]
	var text string
	if !ok || json.Unmarshal(raw, &text) != nil {
		return apperr.InvalidField("body", "must be a string (the comment's text)")
	}
	cm, err := h.social.PostComment(h.ctx(c), caller(c), c.Params("id"), social.CommentInput{Body: text, ClaimedUserID: claim})
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusCreated, fiber.Map{"comment": commentJSON(cm)})
}

// APICommentList answers GET /v1/stack-signal/articles/{id}/comments.
func (h *Handlers) APICommentList(c *fiber.Ctx) error {
	limit, err := queryInt(c, "limit", social.DefaultCommentLimit, 1, social.MaxCommentLimit)
	if err != nil {
		return err
	}
	offset, err := queryInt(c, "offset", 0, 0, social.MaxCommentOffset)
	if err != nil {
		return err
	}
	p, err := h.social.Comments(h.ctx(c), caller(c), c.Params("id"), social.CommentsQuery{Limit: limit, Offset: offset, ClaimedUserID: c.Query("userId")})
	if err != nil {
		return err
	}
	items := make([]CommentJSON, len(p.Comments))
	for i, cm := range p.Comments {
		items[i] = commentJSON(cm)
	}
	return writeJSON(c, http.StatusOK, fiber.Map{"comments": items, "limit": p.Limit, "offset": p.Offset, "total": p.Total})
}

// APICommentDelete answers DELETE /v1/stack-signal/articles/{id}/comments/{comment_id}.
func (h *Handlers) APICommentDelete(c *fiber.Ctx) error {
	if err := h.social.DeleteComment(h.ctx(c), caller(c), c.Params("id"), c.Params("comment_id"), c.Query("userId")); err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}

// APICommentModerate answers PATCH /v1/stack-signal/articles/{id}/comments/{comment_id}.
func (h *Handlers) APICommentModerate(c *fiber.Ctx) error {
	body, err := socialBody(c.Body(), "hidden")
	if err != nil {
		return err
	}
	var hidden bool
	if raw, ok := body["hidden"]; !ok || json.Unmarshal(raw, &hidden) != nil {
		return apperr.InvalidField("hidden", "must be true or false")
	}
	cm, err := h.social.SetCommentHidden(h.ctx(c), caller(c), c.Params("id"), c.Params("comment_id"), hidden)
	if err != nil {
		return err
	}
	out := commentJSON(cm)
	out.Hidden = &cm.Hidden
	return writeJSON(c, http.StatusOK, fiber.Map{"comment": out})
}
