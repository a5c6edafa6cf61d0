package handlers

import (
	"strconv"

	"github.com/ouncehq/ounce/internal/social"
)

// Social returns the social service (the CLI's mute and tests use it directly).
func (h *Handlers) Social() *social.Service { return h.social }

// socialRoutes are the /v1 article view, like and comment routes.
func (h *Handlers) socialRoutes() []APIRoute {
	article := Param{Name: "id", In: "path", Required: true, Description: "The article's id or its slug.", Schema: Schema{"type": "string", "maxLength": 200}, Example: "2026-11-22-daily-synthesis"}
	comment := Param{Name: "comment_id", In: "path", Required: true, Description: "The comment's id, as returned when it was posted or listed.", Schema: Schema{"type": "string", "maxLength": 200}, Example: "c_abc123"}
	claim := Param{Name: "userId", In: "query", Description: "Accepted for compatibility only: when sent it must be your own user id (else 403), and it never identifies anyone by itself (401 without a key).", Schema: Schema{"type": "string", "maxLength": 40}}
	ref := func(name string) Schema { return Schema{"$ref": "#/components/schemas/" + name} }
	userIDProp := Schema{"oneOf": []Schema{{"type": "string", "maxLength": 40}, {"type": "integer"}}, "description": "Optional, for compatibility: must be your own user id."}
	forbidden := Response{Status: 403, Description: "userId is not your own id."}
	notFound := Response{Status: 404, Description: "No article with that id or slug."}
	return []APIRoute{
		{Method: "POST", Path: "/v1/stack-signal/articles/:id/view", Auth: AuthNone, Handler: h.APIArticleView, OperationID: "recordArticleView", Tag: "Social",
			Summary:     "Record a view of an article",
			Description: "Counted once per article per viewer per UTC day: an API key by its id, an anonymous browser by a random first-party cookie (ounce_vid, HttpOnly, set by this call when missing). A client without either counts once per call, but at most once per article per minute from one address. Addresses are never stored.",
			Params:      []Param{article, claim},
			Responses: []Response{
				{Status: 200, Description: "The article's view count after this view.", Schema: socialObject(Schema{"view_count": socialCount()})},
				forbidden, notFound,
			},
			Example: "POST /v1/stack-signal/articles/2026-11-22-daily-synthesis/view"},
		{Method: "POST", Path: "/v1/stack-signal/articles/:id/like", Auth: AuthMember, Handler: h.APIArticleLike, OperationID: "toggleArticleLike", Tag: "Social",
			Summary:      "Like an article, or take your like back",
			Description:  "Toggles your like: liked is true when this call added it. One like per member and article; like_count is exact under concurrent calls. You can only like as yourself: the key decides who you are.",
			Params:       []Param{article, claim},
			Body:         Schema{"type": "object", "additionalProperties": false, "properties": Schema{"userId": userIDProp}},
			BodyOptional: true,
			Responses: []Response{
				{Status: 200, Description: "Your like after the toggle and the article's like count.", Schema: socialObject(Schema{"liked": Schema{"type": "boolean"}, "like_count": socialCount()})},
				forbidden, notFound,
			},
			Example: "POST /v1/stack-signal/articles/2026-11-22-daily-synthesis/like"},
		{Method: "GET", Path: "/v1/stack-signal/articles/:id/likes", Auth: AuthNone, Handler: h.APIArticleLikes, OperationID: "getArticleLikes", Tag: "Social",
			Summary: "An article's like count, and whether you like it",
			Params:  []Param{article, claim},
			Responses: []Response{
				{Status: 200, Description: "user_liked is false without a key.", Schema: socialObject(Schema{"like_count": socialCount(), "user_liked": Schema{"type": "boolean"}})},
				forbidden, notFound,
			},
			Example: "GET /v1/stack-signal/articles/2026-11-22-daily-synthesis/likes"},
		{Method: "POST", Path: "/v1/stack-signal/articles/:id/comments", Auth: AuthMember, Handler: h.APICommentCreate, OperationID: "createArticleComment", Tag: "Social",
			Summary:     "Comment on an article",
			Description: "The body is plain text: surrounding space is trimmed, and it must be 1 to " + strconv.Itoa(social.MaxCommentRunes) + " characters (Unicode code points). It is always shown escaped: no markup, and links are not made clickable. Each member may post " + strconv.Itoa(social.CommentsPerMinute) + " comments a minute and " + strconv.Itoa(social.CommentsPerDay) + " a day (429 with Retry-After past that); a member muted by an administrator gets 403.",
			Params:      []Param{article},
			Body: Schema{"type": "object", "additionalProperties": false, "required": []string{"body"}, "properties": Schema{
				"body": Schema{"type": "string", "description": "The comment, plain text."}, "userId": userIDProp,
			}},
			Responses: []Response{
				{Status: 201, Description: "The comment as readers see it.", Schema: socialObject(Schema{"comment": ref("Comment")})},
				{Status: 403, Description: "userId is not your own id, or an administrator has stopped you from commenting."},
				notFound,
				{Status: 413, Description: "Body over 64 KiB."},
				{Status: 429, Description: "Over " + strconv.Itoa(social.CommentsPerMinute) + " comments a minute or " + strconv.Itoa(social.CommentsPerDay) + " a day (or the key's request limit); Retry-After says when to try again."},
			},
			Example: `POST /v1/stack-signal/articles/2026-11-22-daily-synthesis/comments {"body":"Registered silver fell again this week."}`},
		{Method: "GET", Path: "/v1/stack-signal/articles/:id/comments", Auth: AuthNone, Handler: h.APICommentList, OperationID: "listArticleComments", Tag: "Social",
			Summary:     "An article's comments, oldest first",
			Description: "Each comment names its author by display name only (their choice in account settings, or \"Member\" and a short stable tag); never a user id or email. Hidden and deleted comments are left out.",
			Params: []Param{
				article,
				{Name: "limit", In: "query", Description: "Page size.", Schema: Schema{"type": "integer", "minimum": 1, "maximum": social.MaxCommentLimit, "default": social.DefaultCommentLimit}, Example: "20"},
				{Name: "offset", In: "query", Description: "Comments to skip.", Schema: Schema{"type": "integer", "minimum": 0, "maximum": social.MaxCommentOffset, "default": 0}},
				claim,
			},
			Responses: []Response{
				{Status: 200, Description: "A page of comments.", Schema: socialObject(Schema{
					"comments": Schema{"type": "array", "items": ref("Comment")}, "limit": socialCount(), "offset": socialCount(), "total": socialCount(),
				})},
				forbidden, notFound,
			},
			Example: "GET /v1/stack-signal/articles/2026-11-22-daily-synthesis/comments?limit=20"},
		{Method: "DELETE", Path: "/v1/stack-signal/articles/:id/comments/:comment_id", Auth: AuthMember, Handler: h.APICommentDelete, OperationID: "deleteArticleComment", Tag: "Social",
			Summary: "Delete your comment (administrators: any comment)",
			Params:  []Param{article, comment, claim},
			Responses: []Response{
				{Status: 204, Description: "Deleted."},
				forbidden,
				{Status: 404, Description: "No such article, or no such comment of yours on it."},
			},
			Example: "DELETE /v1/stack-signal/articles/2026-11-22-daily-synthesis/comments/c_abc123"},
		{Method: "PATCH", Path: "/v1/stack-signal/articles/:id/comments/:comment_id", Auth: AuthAdmin, Handler: h.APICommentModerate, OperationID: "moderateArticleComment", Tag: "Social",
			Summary:     "Hide a comment from readers, or show it again",
			Description: "A hidden comment is left out of the list and of comment_count; hidden:false shows it again.",
			Params:      []Param{article, comment},
			Body:        Schema{"type": "object", "additionalProperties": false, "required": []string{"hidden"}, "properties": Schema{"hidden": Schema{"type": "boolean"}}},
			Responses: []Response{
				{Status: 200, Description: "The comment with its new state.", Schema: socialObject(Schema{"comment": ref("Comment")})},
				{Status: 404, Description: "No such article, or no such comment on it."},
			},
			Example: `PATCH /v1/stack-signal/articles/2026-11-22-daily-synthesis/comments/c_abc123 {"hidden":true}`},
	}
}

// socialPages are the article page's like, comment and moderation endpoints.
func (h *Handlers) socialPages() []PageRoute {
	return []PageRoute{
		{Method: "POST", Path: "/signal/:slug/like", Handler: h.SignalLike, Auth: AuthMember},
		{Method: "GET", Path: "/signal/:slug/comments", Handler: h.SignalCommentsEarlier, Auth: AuthNone},
		{Method: "POST", Path: "/signal/:slug/comments", Handler: h.SignalCommentPost, Auth: AuthMember},
		{Method: "POST", Path: "/signal/:slug/comments/:comment_id/delete", Handler: h.SignalCommentDelete, Auth: AuthMember},
		{Method: "POST", Path: "/signal/:slug/comments/:comment_id/hide", Handler: h.SignalCommentHide, Auth: AuthAdmin},
	}
}

func socialCount() Schema { return Schema{"type": "integer", "minimum": 0} }

// socialObject is an object schema whose every listed property is required.
func socialObject(props Schema) Schema { return intelObject(props) }

// socialSchemas are the named schemas of the social routes.
func (h *Handlers) socialSchemas() map[string]Schema {
	return map[string]Schema{
		"Comment": Schema{"type": "object", "required": []string{"id", "author", "body", "created_at"}, "properties": Schema{
			"id":         Schema{"type": "string"},
			"author":     Schema{"type": "string", "description": "The author's display name."},
			"body":       Schema{"type": "string", "description": "Plain text; show it escaped."},
			"created_at": Schema{"type": "string", "format": "date-time"},
			"hidden":     Schema{"type": "boolean", "description": "Only in moderation answers."},
		}},
	}
}
