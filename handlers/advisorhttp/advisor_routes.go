package advisorhttp

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/advisor"
	"github.com/ouncehq/ounce/internal/apperr"
)

// APIRoutes are the /v1 daily brief and advisor chat routes.
func (h *Handlers) APIRoutes() []kit.APIRoute {
	claim := kit.UserIDQuery()
	forbidden := kit.Response{Status: 403, Description: "userId is not your own id, or (brief) the caller is not a Gold member."}
	noConv := kit.Response{Status: 404, Description: "No conversation of yours with that id."}
	conv := kit.PathParam("id", "The conversation's id, as returned by POST /v1/advisor/chat.", 100, "cv_0123456789abcdef01234567")
	quota := "Each member may send " + strconv.Itoa(advisor.FreeDailyQuota) + " messages a day on the free tier and " + strconv.Itoa(advisor.GoldDailyQuota) + " on Gold; the day is the member's own (account time zone, default America/New_York)."
	return []kit.APIRoute{
		{Method: "GET", Path: "/v1/daily-brief", Auth: kit.AuthGold, Handler: h.APIDailyBrief, OperationID: "getDailyBrief", Tag: "Intelligence",
			Summary:     "Your daily brief",
			Description: "The brief of a day in your time zone (today by default): your stack's value and its change since the previous brief, each metal's move, break-even distances, alerts that fired, the most relevant Stack Signal and market-intel items for the metals you hold, and COMEX moves for them. Every figure of the text is listed in figures. 404 when no brief was written that day: generate it with POST /v1/daily-brief/generate.",
			Params: []kit.Param{
				{Name: "date", In: "query", Description: "A day as YYYY-MM-DD; default today in your time zone.", Schema: kit.Schema{"type": "string", "format": "date"}, Example: "2026-11-23"},
				claim,
			},
			Responses: []kit.Response{
				{Status: 200, Description: "The brief.", Schema: advSchema(BriefEnvelopeJSON{})},
				forbidden,
				{Status: 404, Description: "No brief for that day."},
			},
			Example: "GET /v1/daily-brief"},
		{Method: "POST", Path: "/v1/daily-brief/generate", Auth: kit.AuthGold, Handler: h.APIDailyBriefGenerate, OperationID: "generateDailyBrief", Tag: "Intelligence",
			Summary:     "Write today's daily brief",
			Description: "Writes your brief for today (your time zone) from the data as it is now. Idempotent per day: when today's brief exists it is returned unchanged (200) unless regenerate=true, which writes it again and counts as one of the day's advisor messages (the chat quota; 429 with reset_at when they are used). A new brief answers 201. Gold members also get one written at 07:00 their time.",
			Params: []kit.Param{
				{Name: "regenerate", In: "query", Description: "Write today's brief again even when one exists.", Schema: kit.Schema{"type": "boolean", "default": false}},
				claim,
			},
			Body:         advSchema(GenerateBodyJSON{}),
			BodyOptional: true,
			Responses: []kit.Response{
				{Status: 200, Description: "Today's brief, already written.", Schema: advSchema(BriefEnvelopeJSON{})},
				{Status: 201, Description: "Today's brief, written now.", Schema: advSchema(BriefEnvelopeJSON{})},
				forbidden,
				{Status: 429, Description: "regenerate=true with today's advisor messages used (or over the key's request limit); reset_at and Retry-After say when they reset."},
			},
			Example: "POST /v1/daily-brief/generate"},
		{Method: "POST", Path: "/v1/advisor/chat", Auth: kit.AuthMember, Handler: h.APIAdvisorChat, OperationID: "advisorChat", Tag: "Intelligence",
			Summary: "Ask the advisor about your stack",
			Description: "Answers from Ounce's own data about your own stack: value, profit or loss, break-even, allocation, a metal's price now or its change, high and low over a range, the gold/silver ratio, melt value of junk silver, what-if at a target price, dealer premiums, the latest Stack Signal and the COMEX registered trend. facts lists every figure the reply used with its date and source; tool_calls the functions called. " +
				"When a language model is configured it answers through the same functions, and a reply with figures not taken from them is replaced by the built-in engine's (writer says which). Stale prices are named with their dates. The message is 1 to " + strconv.Itoa(advisor.MaxMessageRunes) + " characters. " + quota + " Past it: 429 with Retry-After and reset_at.",
			Body: advSchema(ChatBodyJSON{}),
			Responses: []kit.Response{
				{Status: 200, Description: "The reply.", Schema: kit.Ref("AdvisorReply")},
				kit.NotYourUserID(),
				noConv,
				{Status: 429, Description: "Over today's message quota (or the key's request limit); reset_at and Retry-After say when it resets."},
			},
			Example: `POST /v1/advisor/chat {"message":"What is my stack worth?"}`},
		{Method: "GET", Path: "/v1/advisor/conversations", Auth: kit.AuthMember, Handler: h.APIAdvisorConversations, OperationID: "listAdvisorConversations", Tag: "Intelligence",
			Summary: "Your advisor conversations, most recent first",
			Params: []kit.Param{
				kit.LimitParam(advisor.MaxConversationLimit, advisor.DefaultConversationLimit, ""),
				kit.OffsetParam("Conversations", 1_000_000, ""),
				claim,
			},
			Responses: []kit.Response{
				{Status: 200, Description: "A page of conversations.", Schema: advSchema(ConversationsPageJSON{})},
				kit.NotYourUserID(),
			},
			Example: "GET /v1/advisor/conversations"},
		{Method: "GET", Path: "/v1/advisor/conversations/:id", Auth: kit.AuthMember, Handler: h.APIAdvisorConversation, OperationID: "getAdvisorConversation", Tag: "Intelligence",
			Summary:   "One of your conversations with its messages",
			Params:    []kit.Param{conv, claim},
			Responses: []kit.Response{{Status: 200, Description: "The conversation.", Schema: advSchema(ConversationEnvelopeJSON{})}, kit.NotYourUserID(), noConv},
			Example:   "GET /v1/advisor/conversations/cv_0123456789abcdef01234567"},
		{Method: "DELETE", Path: "/v1/advisor/conversations/:id", Auth: kit.AuthMember, Handler: h.APIAdvisorConversationDelete, OperationID: "deleteAdvisorConversation", Tag: "Intelligence",
			Summary:   "Delete one of your conversations",
			Params:    []kit.Param{conv, claim},
			Responses: []kit.Response{kit.Deleted(), kit.NotYourUserID(), noConv},
			Example:   "DELETE /v1/advisor/conversations/cv_0123456789abcdef01234567"},
	}
}

// PageRoutes are the chat and brief pages. The chat is for every member (the quota
// differs); briefs are Gold.
func (h *Handlers) PageRoutes() []kit.PageRoute {
	return append(kit.PagesFor(kit.AuthMember, []kit.PageRoute{
		{Method: "GET", Path: "/advisor", Handler: h.AdvisorPage},
		{Method: "POST", Path: "/advisor", Handler: h.AdvisorAsk, Costly: true},
		{Method: "GET", Path: "/advisor/stream/:token", Handler: h.AdvisorStream},
	}), kit.PagesFor(kit.AuthGold, []kit.PageRoute{
		{Method: "GET", Path: "/brief", Handler: h.BriefsPage},
		{Method: "GET", Path: "/brief/card", Handler: h.BriefCard},
		{Method: "POST", Path: "/brief/generate", Handler: h.BriefGenerate, Costly: true},
	})...)
}

// advConsts are the limits and shapes the advisor's schema tags name.
func advConsts() kit.Consts {
	return kit.Consts{"MaxMessageRunes": advisor.MaxMessageRunes, "UserIDClaim": kit.UserIDClaim()}
}

// advSchema generates the schema of an advisor wire struct (objects open unless closed).
func advSchema(v any) kit.Schema { return kit.OpenSchemaOf(v, advConsts()) }

// Schemas are the named schemas of the advisor routes.
func (h *Handlers) Schemas() map[string]kit.Schema {
	return map[string]kit.Schema{
		"DailyBrief":          advSchema(BriefJSON{}),
		"AdvisorReply":        advSchema(ChatReplyJSON{}),
		"AdvisorConversation": advSchema(ConversationJSON{}),
	}
}

// MCPTools is the advisor chat as an MCP tool, for a Gold member's key (MCP tools are
// public or Gold); it counts against the same daily quota as POST /v1/advisor/chat.
func (h *Handlers) MCPTools() []kit.MCPTool {
	if h.advisor == nil {
		return nil
	}
	return []kit.MCPTool{{Name: "ask_advisor", Gold: true, Method: "POST", Path: "/v1/advisor/chat",
		Description: "Ask Ounce's advisor about your own stack (Gold members): value, profit/loss, break-even, allocation, a metal's price or its change/high/low over a range, the gold/silver ratio, junk silver melt, what-if at a target price, dealer premiums, the latest Stack Signal, the COMEX registered trend. The reply lists the facts it used with dates and sources.",
		Schema:      kit.SchemaOf(chatToolArgs{}, advConsts()),
		Call: func(ctx context.Context, _ map[string]string, raw json.RawMessage, u *account.User) (any, error) {
			var in chatToolArgs
			if err := json.Unmarshal(raw, &in); err != nil {
				return nil, apperr.InvalidField("message", "must be a string")
			}
			r, err := h.advisor.Chat(ctx, *u, advisor.ChatInput{Message: in.Message, ConversationID: in.ConversationID})
			if err != nil {
				return nil, err
			}
			return chatReplyJSON(r), nil
		}}}
}
