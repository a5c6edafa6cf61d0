package socialhttp

import (
	"strconv"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/ouncehq/ounce/internal/social"
)

// APIRoutes are the /v1 article view, like and comment routes.
func (h *Handlers) APIRoutes() []kit.APIRoute {
	article := kit.PathParam("id", "The article's id or its slug.", 200, "2026-11-22-daily-synthesis")
	comment := kit.PathParam("comment_id", "The comment's id, as returned when it was posted or listed.", 200, "c_abc123")
	claim := kit.UserIDQuery()
	forbidden := kit.NotYourUserID()
	notFound := kit.Response{Status: 404, Description: "No article with that id or slug."}
	return []kit.APIRoute{
		{Method: "POST", Path: "/v1/stack-signal/articles/:id/view", Auth: kit.AuthNone, Handler: h.APIArticleView, OperationID: "recordArticleView", Tag: "Social",
			Summary:     "Record a view of an article",
			Description: "Counted once per article per viewer per UTC day: an API key by its id, an anonymous browser by a first-party cookie (ounce_vid, HttpOnly, a random id signed by the server, set by this call when missing; one the server did not sign counts as none). A client without either counts once per call, but at most once per article per minute from one address. Addresses are never stored.",
			Params:      []kit.Param{article, claim},
			Responses: []kit.Response{
				{Status: 200, Description: "The article's view count after this view.", Schema: socialSchema(ViewCountJSON{})},
				forbidden, notFound,
			},
			Example: "POST /v1/stack-signal/articles/2026-11-22-daily-synthesis/view"},
		{Method: "POST", Path: "/v1/stack-signal/articles/:id/like", Auth: kit.AuthMember, Handler: h.APIArticleLike, OperationID: "toggleArticleLike", Tag: "Social",
			Summary:      "Like an article, or take your like back",
			Description:  "Toggles your like: liked is true when this call added it. One like per member and article; like_count is exact under concurrent calls. You can only like as yourself: the key decides who you are.",
			Params:       []kit.Param{article, claim},
			Body:         socialSchema(LikeBodyJSON{}),
			BodyOptional: true,
			Responses: []kit.Response{
				{Status: 200, Description: "Your like after the toggle and the article's like count.", Schema: socialSchema(LikeToggleJSON{})},
				forbidden, notFound,
			},
			Example: "POST /v1/stack-signal/articles/2026-11-22-daily-synthesis/like"},
		{Method: "GET", Path: "/v1/stack-signal/articles/:id/likes", Auth: kit.AuthNone, Handler: h.APIArticleLikes, OperationID: "getArticleLikes", Tag: "Social",
			Summary: "An article's like count, and whether you like it",
			Params:  []kit.Param{article, claim},
			Responses: []kit.Response{
				{Status: 200, Description: "user_liked is false without a key.", Schema: socialSchema(LikesJSON{})},
				forbidden, notFound,
			},
			Example: "GET /v1/stack-signal/articles/2026-11-22-daily-synthesis/likes"},
		{Method: "POST", Path: "/v1/stack-signal/articles/:id/comments", Auth: kit.AuthMember, Handler: h.APICommentCreate, OperationID: "createArticleComment", Tag: "Social",
			Summary:     "Comment on an article",
			Description: "The body is plain text: surrounding space is trimmed, and it must be 1 to " + strconv.Itoa(social.MaxCommentRunes) + " characters (Unicode code points). It is always shown escaped: no markup, and links are not made clickable. Each member may post " + strconv.Itoa(social.CommentsPerMinute) + " comments a minute and " + strconv.Itoa(social.CommentsPerDay) + " a day (429 with Retry-After past that); a member muted by an administrator gets 403.",
			Params:      []kit.Param{article},
			Body:        socialSchema(CommentBodyJSON{}),
			Responses: []kit.Response{
				{Status: 201, Description: "The comment as readers see it.", Schema: socialSchema(CommentEnvelopeJSON{})},
				{Status: 403, Description: "userId is not your own id, or an administrator has stopped you from commenting."},
				notFound,
				kit.BodyTooLarge(kit.MaxJSONBody),
				kit.ProblemResponse(422, "body holds text-direction control characters (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C); errors names the field."),
				{Status: 429, Description: "Over " + strconv.Itoa(social.CommentsPerMinute) + " comments a minute or " + strconv.Itoa(social.CommentsPerDay) + " a day (or the key's request limit); Retry-After says when to try again."},
			},
			Example: `POST /v1/stack-signal/articles/2026-11-22-daily-synthesis/comments {"body":"Registered silver fell again this week."}`},
		{Method: "GET", Path: "/v1/stack-signal/articles/:id/comments", Auth: kit.AuthNone, Handler: h.APICommentList, OperationID: "listArticleComments", Tag: "Social",
			Summary:     "An article's comments, oldest first",
			Description: "Each comment names its author by display name only (their choice in account settings, or \"Member\" and a short stable tag); never a user id or email. Hidden and deleted comments are left out.",
			Params: []kit.Param{
				article,
				kit.LimitParam(social.MaxCommentLimit, social.DefaultCommentLimit, "20"),
				kit.OffsetParam("Comments", social.MaxCommentOffset, ""),
				claim,
			},
			Responses: []kit.Response{
				{Status: 200, Description: "A page of comments.", Schema: socialSchema(CommentsPageJSON{})},
				forbidden, notFound,
			},
			Example: "GET /v1/stack-signal/articles/2026-11-22-daily-synthesis/comments?limit=20"},
		{Method: "DELETE", Path: "/v1/stack-signal/articles/:id/comments/:comment_id", Auth: kit.AuthMember, Handler: h.APICommentDelete, OperationID: "deleteArticleComment", Tag: "Social",
			Summary: "Delete your comment (administrators: any comment)",
			Params:  []kit.Param{article, comment, claim},
			Responses: []kit.Response{
				kit.Deleted(),
				forbidden,
				{Status: 404, Description: "No such article, or no such comment of yours on it."},
			},
			Example: "DELETE /v1/stack-signal/articles/2026-11-22-daily-synthesis/comments/c_abc123"},
		{Method: "PATCH", Path: "/v1/stack-signal/articles/:id/comments/:comment_id", Auth: kit.AuthAdmin, Handler: h.APICommentModerate, OperationID: "moderateArticleComment", Tag: "Social",
			Summary:     "Hide a comment from readers, or show it again",
			Description: "A hidden comment is left out of the list and of comment_count; hidden:false shows it again.",
			Params:      []kit.Param{article, comment},
			Body:        socialSchema(ModerateBodyJSON{}),
			Responses: []kit.Response{
				{Status: 200, Description: "The comment with its new state.", Schema: socialSchema(CommentEnvelopeJSON{})},
				{Status: 404, Description: "No such article, or no such comment on it."},
			},
			Example: `PATCH /v1/stack-signal/articles/2026-11-22-daily-synthesis/comments/c_abc123 {"hidden":true}`},
	}
}

// PageRoutes are the article page's like, comment and moderation endpoints.
func (h *Handlers) PageRoutes() []kit.PageRoute {
	return []kit.PageRoute{
		{Method: "GET", Path: "/signal/:slug", Handler: h.SignalArticle, Auth: kit.AuthNone},
		{Method: "POST", Path: "/signal/:slug/like", Handler: h.SignalLike, Auth: kit.AuthMember},
		{Method: "GET", Path: "/signal/:slug/comments", Handler: h.SignalCommentsEarlier, Auth: kit.AuthNone},
		{Method: "POST", Path: "/signal/:slug/comments", Handler: h.SignalCommentPost, Auth: kit.AuthMember},
		{Method: "POST", Path: "/signal/:slug/comments/:comment_id/delete", Handler: h.SignalCommentDelete, Auth: kit.AuthMember},
		{Method: "POST", Path: "/signal/:slug/comments/:comment_id/hide", Handler: h.SignalCommentHide, Auth: kit.AuthAdmin},
	}
}

// socialSchema generates the schema of a social wire struct (objects open unless closed).
func socialSchema(v any) kit.Schema {
	return kit.OpenSchemaOf(v, kit.Consts{"UserIDClaim": kit.UserIDClaim()})
}

// Schemas are the named schemas of the social routes.
func (h *Handlers) Schemas() map[string]kit.Schema {
	return map[string]kit.Schema{"Comment": socialSchema(CommentJSON{})}
}
