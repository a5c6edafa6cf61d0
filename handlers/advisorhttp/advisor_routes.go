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
	ref := func(name string) kit.Schema { return kit.Schema{"$ref": "#/components/schemas/" + name} }
	claim := kit.Param{Name: "userId", In: "query", Description: "Accepted for compatibility only: when sent it must be your own user id (else 403); it never identifies anyone by itself.", Schema: kit.Schema{"type": "string", "maxLength": 40}}
	userIDProp := kit.Schema{"oneOf": []kit.Schema{{"type": "string", "maxLength": 40}, {"type": "integer"}}, "description": "Optional, for compatibility: must be your own user id."}
	forbidden := kit.Response{Status: 403, Description: "userId is not your own id, or (brief) the caller is not a Gold member."}
	conv := kit.Param{Name: "id", In: "path", Required: true, Description: "The conversation's id, as returned by POST /v1/advisor/chat.", Schema: kit.Schema{"type": "string", "maxLength": 100}, Example: "cv_0123456789abcdef01234567"}
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
				{Status: 200, Description: "The brief.", Schema: kit.Object(kit.Schema{"brief": ref("DailyBrief")})},
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
			Body:         kit.Schema{"type": "object", "additionalProperties": false, "properties": kit.Schema{"userId": userIDProp}},
			BodyOptional: true,
			Responses: []kit.Response{
				{Status: 200, Description: "Today's brief, already written.", Schema: kit.Object(kit.Schema{"brief": ref("DailyBrief")})},
				{Status: 201, Description: "Today's brief, written now.", Schema: kit.Object(kit.Schema{"brief": ref("DailyBrief")})},
				forbidden,
				{Status: 429, Description: "regenerate=true with today's advisor messages used (or over the key's request limit); reset_at and Retry-After say when they reset."},
			},
			Example: "POST /v1/daily-brief/generate"},
		{Method: "POST", Path: "/v1/advisor/chat", Auth: kit.AuthMember, Handler: h.APIAdvisorChat, OperationID: "advisorChat", Tag: "Intelligence",
			Summary: "Ask the advisor about your stack",
			Description: "Answers from Ounce's own data about your own stack: value, profit or loss, break-even, allocation, a metal's price now or its change, high and low over a range, the gold/silver ratio, melt value of junk silver, what-if at a target price, dealer premiums, the latest Stack Signal and the COMEX registered trend. facts lists every figure the reply used with its date and source; tool_calls the functions called. " +
				"When a language model is configured it answers through the same functions, and a reply with figures not taken from them is replaced by the built-in engine's (writer says which). Stale prices are named with their dates. The message is 1 to " + strconv.Itoa(advisor.MaxMessageRunes) + " characters. " + quota + " Past it: 429 with Retry-After and reset_at.",
			Body: kit.Schema{"type": "object", "additionalProperties": false, "required": []string{"message"}, "properties": kit.Schema{
				"message":         kit.Schema{"type": "string", "minLength": 1, "description": "The question, 1 to " + strconv.Itoa(advisor.MaxMessageRunes) + " characters."},
				"conversation_id": kit.Schema{"type": "string", "description": "Continue this conversation of yours; omit to start one."},
				"userId":          userIDProp,
			}},
			Responses: []kit.Response{
				{Status: 200, Description: "The reply.", Schema: ref("AdvisorReply")},
				{Status: 403, Description: "userId is not your own id."},
				{Status: 404, Description: "No conversation of yours with that id."},
				{Status: 429, Description: "Over today's message quota (or the key's request limit); reset_at and Retry-After say when it resets."},
			},
			Example: `POST /v1/advisor/chat {"message":"What is my stack worth?"}`},
		{Method: "GET", Path: "/v1/advisor/conversations", Auth: kit.AuthMember, Handler: h.APIAdvisorConversations, OperationID: "listAdvisorConversations", Tag: "Intelligence",
			Summary: "Your advisor conversations, most recent first",
			Params: []kit.Param{
				{Name: "limit", In: "query", Description: "Page size.", Schema: kit.Schema{"type": "integer", "minimum": 1, "maximum": advisor.MaxConversationLimit, "default": advisor.DefaultConversationLimit}},
				{Name: "offset", In: "query", Description: "Conversations to skip.", Schema: kit.Schema{"type": "integer", "minimum": 0, "maximum": 1000000, "default": 0}},
				claim,
			},
			Responses: []kit.Response{
				{Status: 200, Description: "A page of conversations.", Schema: kit.Object(kit.Schema{
					"conversations": kit.Schema{"type": "array", "items": ref("AdvisorConversation")}, "limit": kit.CountSchema(), "offset": kit.CountSchema(), "total": kit.CountSchema(),
				})},
				{Status: 403, Description: "userId is not your own id."},
			},
			Example: "GET /v1/advisor/conversations"},
		{Method: "GET", Path: "/v1/advisor/conversations/:id", Auth: kit.AuthMember, Handler: h.APIAdvisorConversation, OperationID: "getAdvisorConversation", Tag: "Intelligence",
			Summary:   "One of your conversations with its messages",
			Params:    []kit.Param{conv, claim},
			Responses: []kit.Response{{Status: 200, Description: "The conversation.", Schema: kit.Object(kit.Schema{"conversation": ref("AdvisorConversation")})}, {Status: 403, Description: "userId is not your own id."}, {Status: 404, Description: "No conversation of yours with that id."}},
			Example:   "GET /v1/advisor/conversations/cv_0123456789abcdef01234567"},
		{Method: "DELETE", Path: "/v1/advisor/conversations/:id", Auth: kit.AuthMember, Handler: h.APIAdvisorConversationDelete, OperationID: "deleteAdvisorConversation", Tag: "Intelligence",
			Summary:   "Delete one of your conversations",
			Params:    []kit.Param{conv, claim},
			Responses: []kit.Response{{Status: 204, Description: "Deleted."}, {Status: 403, Description: "userId is not your own id."}, {Status: 404, Description: "No conversation of yours with that id."}},
			Example:   "DELETE /v1/advisor/conversations/cv_0123456789abcdef01234567"},
	}
}

// PageRoutes are the chat and brief pages. The chat is for every member (the quota
// differs); briefs are Gold.
func (h *Handlers) PageRoutes() []kit.PageRoute {
	return []kit.PageRoute{
		{Method: "GET", Path: "/advisor", Handler: h.AdvisorPage, Auth: kit.AuthMember},
		{Method: "POST", Path: "/advisor", Handler: h.AdvisorAsk, Auth: kit.AuthMember, Costly: true},
		{Method: "GET", Path: "/advisor/stream/:token", Handler: h.AdvisorStream, Auth: kit.AuthMember},
		{Method: "GET", Path: "/brief", Handler: h.BriefsPage, Auth: kit.AuthGold},
		{Method: "GET", Path: "/brief/card", Handler: h.BriefCard, Auth: kit.AuthGold},
		{Method: "POST", Path: "/brief/generate", Handler: h.BriefGenerate, Auth: kit.AuthGold, Costly: true},
	}
}

// Schemas are the named schemas of the advisor routes.
func (h *Handlers) Schemas() map[string]kit.Schema {
	num := kit.Schema{"type": "number", "format": "double"}
	optNum := kit.Schema{"type": "number", "format": "double", "nullable": true}
	optTime := kit.Schema{"type": "string", "format": "date-time", "nullable": true}
	optStr := kit.Schema{"type": "string", "nullable": true}
	fact := kit.Schema{"type": "object", "required": []string{"label", "value", "as_of", "source"}, "properties": kit.Schema{
		"label": kit.Schema{"type": "string"}, "value": kit.Schema{"type": "string", "description": "The figure as the reply shows it."},
		"as_of": optTime, "source": kit.Schema{"type": "string"},
	}}
	call := kit.Schema{"type": "object", "required": []string{"name", "arguments"}, "properties": kit.Schema{
		"name": kit.Schema{"type": "string"}, "arguments": kit.Schema{"type": "string", "description": "The arguments as a JSON object."},
	}}
	return map[string]kit.Schema{
		"DailyBrief": kit.Schema{"type": "object", "required": []string{"date", "generated_at", "writer", "headline", "body", "sections", "figures", "sources", "stale"}, "properties": kit.Schema{
			"date":         kit.Schema{"type": "string", "format": "date", "description": "The day in your time zone."},
			"generated_at": kit.Schema{"type": "string", "format": "date-time"},
			"writer":       kit.Schema{"type": "string", "description": "builtin, or llm:<model>."},
			"headline":     kit.Schema{"type": "string"},
			"body":         kit.Schema{"type": "string", "description": "The sections' text, paragraphs separated by blank lines."},
			"sections": kit.Schema{"type": "array", "items": kit.Schema{"type": "object", "required": []string{"title", "text"}, "properties": kit.Schema{
				"title": kit.Schema{"type": "string"}, "text": kit.Schema{"type": "string"}}}},
			"figures": kit.Schema{"type": "object", "required": []string{"stack_value", "change", "change_pct", "change_from", "by_metal", "alerts"}, "properties": kit.Schema{
				"stack_value": optNum, "change": optNum, "change_pct": optNum,
				"change_from": kit.Schema{"type": "string", "nullable": true, "description": "The date of the previous brief the change is measured from, or \"previous close\"."},
				"by_metal": kit.Schema{"type": "object", "additionalProperties": kit.Schema{"type": "object", "properties": kit.Schema{
					"held_oz": num, "spot": kit.Nullable(kit.NumSchema("USD per troy ounce at its source's precision (2 to 4 decimals).")), "spot_as_of": optTime, "spot_stale": kit.Schema{"type": "boolean"}, "value": optNum,
					"change_pct": optNum, "change_from": optStr, "break_even": optNum, "distance_to_break_even_pct": optNum,
					"comex_registered": optNum, "comex_registered_change": optNum, "comex_as_of": optTime,
				}}},
				"alerts": kit.Schema{"type": "array", "items": kit.Schema{"type": "object", "properties": kit.Schema{
					"metal": kit.Schema{"type": "string"}, "direction": kit.Schema{"type": "string"}, "target": kit.Schema{"type": "string"},
					"price": kit.Schema{"type": "string"}, "fired_at": kit.Schema{"type": "string", "format": "date-time"}}}},
			}},
			"sources": kit.Schema{"type": "array", "items": kit.Schema{"type": "object", "required": []string{"kind", "title", "url", "as_of"}, "properties": kit.Schema{
				"kind": kit.Schema{"type": "string"}, "title": kit.Schema{"type": "string"}, "url": kit.Schema{"type": "string"}, "as_of": optTime}}},
			"stale": kit.Schema{"type": "boolean", "description": "True when a price behind the brief is not live."},
		}},
		"AdvisorReply": kit.Schema{"type": "object", "required": []string{"conversation_id", "reply", "facts", "tool_calls", "writer", "stale"}, "properties": kit.Schema{
			"conversation_id": kit.Schema{"type": "string"},
			"reply":           kit.Schema{"type": "string"},
			"facts":           kit.Schema{"type": "array", "items": fact},
			"tool_calls":      kit.Schema{"type": "array", "items": call},
			"writer":          kit.Schema{"type": "string", "description": "builtin, or llm:<model> when a model wrote the reply."},
			"stale":           kit.Schema{"type": "boolean", "description": "True when a price behind the reply is not live (the reply names its date)."},
		}},
		"AdvisorConversation": kit.Schema{"type": "object", "required": []string{"id", "title", "created_at", "updated_at"}, "properties": kit.Schema{
			"id": kit.Schema{"type": "string"}, "title": kit.Schema{"type": "string"},
			"created_at": kit.Schema{"type": "string", "format": "date-time"}, "updated_at": kit.Schema{"type": "string", "format": "date-time"},
			"messages": kit.Schema{"type": "array", "description": "Only when one conversation is read.", "items": kit.Schema{"type": "object",
				"required": []string{"role", "content", "facts", "tool_calls", "writer", "created_at"}, "properties": kit.Schema{
					"role": kit.Schema{"type": "string", "enum": []string{"user", "assistant"}}, "content": kit.Schema{"type": "string"},
					"facts": kit.Schema{"type": "array", "items": fact}, "tool_calls": kit.Schema{"type": "array", "items": call},
					"writer": kit.Schema{"type": "string"}, "created_at": kit.Schema{"type": "string", "format": "date-time"},
				}}},
		}},
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
		Schema: kit.Schema{"type": "object", "additionalProperties": false, "required": []string{"message"}, "properties": kit.Schema{
			"message":         kit.Schema{"type": "string", "minLength": 1, "maxLength": advisor.MaxMessageRunes},
			"conversation_id": kit.Schema{"type": "string"},
		}},
		Call: func(ctx context.Context, _ map[string]string, raw json.RawMessage, u *account.User) (any, error) {
			var in struct {
				Message        string `json:"message"`
				ConversationID string `json:"conversation_id"`
			}
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
