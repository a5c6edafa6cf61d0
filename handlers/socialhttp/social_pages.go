package socialhttp

import (
	"net/http"
	"net/url"
	"strconv"
	"unicode/utf8"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/intel"
	"github.com/ouncehq/ounce/internal/social"
	"github.com/ouncehq/ounce/views/format"
	"github.com/ouncehq/ounce/views/pages"
)

// commentPageSize is how many comments the article page shows at once.
const commentPageSize = social.DefaultCommentLimit

// commentDraft is the comment form's state after a refused post.
type commentDraft struct {
	Body, Error string
}

// articleSocial builds the reactions part of the article page. A GET records the reader's
// view first, so the count shown includes it.
func (h *Handlers) articleSocial(c *fiber.Ctx, a intel.Published, draft commentDraft) (pages.ArticleSocialView, error) {
	ctx := h.Ctx(c)
	views := a.ViewCount
	if c.Method() == http.MethodGet {
		v := h.viewer(c)
		v.ClaimedUserID = "" // pages know who you are from the session alone
		if res, err := h.social.RecordView(ctx, a.ID, v); err != nil {
			// Reading never fails because counting did.
			h.Log.WarnContext(ctx, "recording an article view", "err", err, "request_id", kit.RequestID(c))
		} else {
			views = res.Count
		}
	}
	likes, err := h.social.Likes(ctx, kit.Caller(c), a.ID, "")
	if err != nil {
		return pages.ArticleSocialView{}, err
	}
	from := -1
	if raw := c.Query("comments"); raw != "" {
		if from, err = kit.ParseIntParam("comments", raw, 0, 0, social.MaxCommentOffset); err != nil {
			return pages.ArticleSocialView{}, err
		}
	}
	comments, err := h.commentsView(c, a.Slug, from, draft)
	if err != nil {
		return pages.ArticleSocialView{}, err
	}
	nonce, _ := c.Locals(kit.LocalNonce).(string)
	return pages.ArticleSocialView{ViewsLabel: format.Count(views, "view", "views"), Like: h.likeView(c, a.Slug, likes), Comments: comments, Nonce: nonce}, nil
}

func (h *Handlers) likeView(c *fiber.Ctx, slug string, st social.LikeState) pages.LikeView {
	csrf, _ := c.Locals(kit.LocalCSRF).(string)
	_, signedIn := kit.UserFrom(c)
	return pages.LikeView{Slug: slug, Liked: st.Liked, CountLabel: format.Count(st.Count, "like", "likes"), SignedIn: signedIn, CSRF: csrf,
		LoginURL: "/login?next=" + url.QueryEscape("/signal/"+slug)}
}

// commentsView is the thread: the latest commentPageSize comments, or those from `from` on
// when it is 0 or more.
func (h *Handlers) commentsView(c *fiber.Ctx, slug string, from int, draft commentDraft) (pages.CommentsView, error) {
	ctx, u := h.Ctx(c), kit.Caller(c)
	q := social.CommentsQuery{Limit: commentPageSize, Offset: max(from, 0)}
	p, err := h.social.Comments(ctx, u, slug, q)
	if err != nil {
		return pages.CommentsView{}, err
	}
	if from < 0 && p.Total > commentPageSize {
		q.Offset = p.Total - commentPageSize
		if p, err = h.social.Comments(ctx, u, slug, q); err != nil {
			return pages.CommentsView{}, err
		}
	}
	csrf, _ := c.Locals(kit.LocalCSRF).(string)
	v := pages.CommentsView{Slug: slug, Total: p.Total, CountLabel: format.Count(int64(p.Total), "comment", "comments"), CSRF: csrf,
		LoginURL: "/login?next=" + url.QueryEscape("/signal/"+slug+"#comments"), Draft: draft.Body, Error: draft.Error,
		DraftCounter: format.Int(int64(utf8.RuneCountInString(draft.Body))), MaxChars: social.MaxCommentRunes, MaxLabel: format.Int(social.MaxCommentRunes)}
	v.Comments, v.EarlierURL = h.commentItems(u, slug, p)
	if p.Offset+len(p.Comments) < p.Total {
		v.LaterURL = "/signal/" + slug + "#comments"
	}
	if u.ID != 0 {
		v.SignedIn, v.AuthorName = true, account.DisplayName(u)
		if v.Muted, err = h.social.Muted(ctx, u); err != nil {
			return pages.CommentsView{}, err
		}
	}
	return v, nil
}

// commentItems formats a page of comments and the address of the page before it.
func (h *Handlers) commentItems(u account.User, slug string, p social.CommentPage) ([]pages.CommentView, string) {
	out := make([]pages.CommentView, len(p.Comments))
	for i, cm := range p.Comments {
		out[i] = pages.CommentView{ID: cm.ID, Author: cm.Author, Body: cm.Body, Date: format.DateTime(cm.CreatedAt), DateTime: cm.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"),
			Mine: cm.Mine, CanDelete: cm.CanDelete, CanHide: account.IsAdmin(u)}
	}
	earlier := ""
	if p.Offset > 0 {
		start := max(p.Offset-commentPageSize, 0)
		earlier = "/signal/" + slug + "/comments?offset=" + strconv.Itoa(start) + "&limit=" + strconv.Itoa(p.Offset-start)
	}
	return out, earlier
}

// SignalLike toggles the reader's like; HTMX gets the button back, a plain form the page.
func (h *Handlers) SignalLike(c *fiber.Ctx) error {
	slug := c.Params("slug")
	st, err := h.social.ToggleLike(h.Ctx(c), kit.Caller(c), slug, "")
	if err != nil {
		return err
	}
	if !kit.IsHTMX(c) {
		return c.Redirect("/signal/"+url.PathEscape(slug), http.StatusSeeOther)
	}
	return kit.Render(c, http.StatusOK, pages.LikeButton(h.likeView(c, slug, st)))
}

// SignalCommentsEarlier is the page of comments before those shown (HTMX), or the article
// page with the thread starting there.
func (h *Handlers) SignalCommentsEarlier(c *fiber.Ctx) error {
	slug := c.Params("slug")
	offset, err := kit.QueryInt(c, "offset", 0, 0, social.MaxCommentOffset)
	if err != nil {
		return err
	}
	if !kit.IsHTMX(c) {
		return c.Redirect("/signal/"+url.PathEscape(slug)+"?comments="+strconv.Itoa(offset)+"#comments", http.StatusSeeOther)
	}
	limit, err := kit.QueryInt(c, "limit", commentPageSize, 1, social.MaxCommentLimit)
	if err != nil {
		return err
	}
	u := kit.Caller(c)
	p, err := h.social.Comments(h.Ctx(c), u, slug, social.CommentsQuery{Limit: limit, Offset: offset})
	if err != nil {
		return err
	}
	csrf, _ := c.Locals(kit.LocalCSRF).(string)
	v := pages.CommentsView{Slug: slug, CSRF: csrf}
	v.Comments, v.EarlierURL = h.commentItems(u, slug, p)
	return kit.Render(c, http.StatusOK, pages.CommentItems(v))
}

// SignalCommentPost adds the reader's comment. A refused text comes back in the form with
// the reason; a plain form post gets the page.
func (h *Handlers) SignalCommentPost(c *fiber.Ctx) error {
	slug, body := c.Params("slug"), c.FormValue("body")
	_, err := h.social.PostComment(h.Ctx(c), kit.Caller(c), slug, social.CommentInput{Body: body})
	if fields := commentFieldErrors(err); len(fields) > 0 {
		draft := commentDraft{Body: body, Error: kit.FieldSentence("body", fields[0].Message)}
		if !kit.IsHTMX(c) {
			return h.signalArticle(c, draft, http.StatusUnprocessableEntity)
		}
		return h.renderComments(c, slug, draft, http.StatusUnprocessableEntity)
	}
	if err != nil {
		return err
	}
	return h.renderComments(c, slug, commentDraft{}, http.StatusOK)
}

// SignalCommentDelete deletes the reader's comment (an administrator's: any).
func (h *Handlers) SignalCommentDelete(c *fiber.Ctx) error {
	slug := c.Params("slug")
	if err := h.social.DeleteComment(h.Ctx(c), kit.Caller(c), slug, c.Params("comment_id"), ""); err != nil {
		return err
	}
	return h.renderComments(c, slug, commentDraft{}, http.StatusOK)
}

// SignalCommentHide hides a comment from readers (administrators).
func (h *Handlers) SignalCommentHide(c *fiber.Ctx) error {
	slug := c.Params("slug")
	if _, err := h.social.SetCommentHidden(h.Ctx(c), kit.Caller(c), slug, c.Params("comment_id"), true); err != nil {
		return err
	}
	return h.renderComments(c, slug, commentDraft{}, http.StatusOK)
}

// renderComments answers a thread change: the thread for HTMX, the page for a plain form.
func (h *Handlers) renderComments(c *fiber.Ctx, slug string, draft commentDraft, status int) error {
	if !kit.IsHTMX(c) {
		return c.Redirect("/signal/"+url.PathEscape(slug)+"#comments", http.StatusSeeOther)
	}
	v, err := h.commentsView(c, slug, -1, draft)
	if err != nil {
		return err
	}
	return kit.Render(c, status, pages.CommentsSection(v))
}

// commentFieldErrors are the bad fields of a refused comment: invalid ones, and text refused
// as unprocessable (text-direction controls).
func commentFieldErrors(err error) []apperr.FieldError {
	if e, ok := apperr.As(err); ok && e.Kind == apperr.Unprocessable {
		return e.Fields
	}
	return apperr.FieldsOf(err)
}
