package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCPTools lists every tool; the public six first.
func (h *Handlers) MCPTools() []kit.MCPTool {
	var tools []kit.MCPTool
	for _, a := range h.areas {
		tools = append(tools, a.MCPTools()...)
	}
	order := map[string]int{"get_spot_prices": 0, "get_price_history": 1, "get_stack_signal": 2, "get_vault_watch": 3, "get_junk_silver": 4, "get_speculation": 5}
	sort.SliceStable(tools, func(i, j int) bool {
		oi, ok1 := order[tools[i].Name]
		oj, ok2 := order[tools[j].Name]
		if !ok1 {
			oi = 100
		}
		if !ok2 {
			oj = 100
		}
		return oi < oj
	})
	return tools
}

// InputSchema is the tool's JSON Schema: its REST route's parameters as properties.
func (h *Handlers) toolInputSchema(t kit.MCPTool) kit.Schema {
	if t.Schema != nil {
		return t.Schema
	}
	props := kit.Schema{}
	var required []string
	for _, r := range h.APIRoutes() {
		if r.Method != t.Method || r.Path != t.Path {
			continue
		}
		for _, p := range r.Params {
			s := kit.Schema{}
			for k, v := range p.Schema {
				if k == "exclusiveMinimum" {
					continue // an OpenAPI 3.0 boolean; JSON Schema wants a number
				}
				s[k] = v
			}
			if p.Description != "" {
				s["description"] = p.Description
			}
			props[p.Name] = s
			if p.Required {
				required = append(required, p.Name)
			}
		}
	}
	out := kit.Schema{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		out["required"] = required
	}
	return out
}

// toolArgs flattens JSON arguments into the strings the query-based use cases take.
func toolArgs(raw json.RawMessage, allowed kit.Schema) (map[string]string, error) {
	out := map[string]string{}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return out, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, kit.Invalid("arguments", "must be a JSON object")
	}
	props, _ := allowed["properties"].(kit.Schema)
	for k, v := range m {
		if _, ok := props[k]; !ok && props != nil {
			return nil, kit.Invalid(k, "unknown argument")
		}
		switch x := v.(type) {
		case nil:
		case string:
			out[k] = x
		case json.Number:
			out[k] = x.String()
		case bool:
			out[k] = fmt.Sprint(x)
		default:
			if p, ok := props[k].(kit.Schema); ok && (p["type"] == "array" || p["type"] == "object") {
				continue // a structured body field (a disposal's lots): the tool reads it from raw
			}
			return nil, kit.Invalid(k, "must be a string or a number")
		}
	}
	return out, nil
}

// MCPServer builds the MCP server for one request: the public tools always, the Gold tools
// only for a Gold member.
func (h *Handlers) MCPServer(u *account.User) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "ounce", Title: "Ounce", Version: "1.0.0"}, &mcp.ServerOptions{
		Instructions: "Precious-metals prices, history, Stack Signal articles, COMEX vault data and calculators. Prices are USD per troy ounce; stale=true marks last-known values.",
	})
	for _, t := range h.MCPTools() {
		if t.Gold && (u == nil || !account.IsGold(*u)) {
			continue
		}
		tool := t
		schema := h.toolInputSchema(tool)
		s.AddTool(&mcp.Tool{Name: tool.Name, Description: tool.Description, InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			raw := req.Params.Arguments
			args, err := toolArgs(raw, schema)
			var res any
			if err == nil {
				res, err = tool.Call(ctx, args, raw, u)
			}
			if err != nil {
				p := kit.AsProblem(err)
				msg := fmt.Sprintf("%d %s: %s", p.Status, strings.TrimPrefix(p.Type, "/problems/"), p.Detail)
				if p.Status >= 500 {
					h.Log.Error("mcp tool failed", "tool", tool.Name, "err", err)
				}
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, nil
			}
			b, err := json.Marshal(res)
			if err != nil {
				return nil, err
			}
			var structured map[string]any
			_ = json.Unmarshal(b, &structured)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: structured}, nil
		})
	}
	return s
}

// MCPHandler is the Streamable HTTP endpoint at /mcp, stateless with JSON responses so it
// sits behind any proxy. The bearer key (checked again here, after the web layer's limits)
// decides which tools exist.
func (h *Handlers) MCPHandler() http.Handler {
	return mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		var up *account.User
		if secret, ok := kit.BearerToken(r.Header.Get("Authorization")); ok {
			if ko, err := h.auth.AuthenticateKey(r.Context(), secret); err == nil {
				u := ko.User
				up = &u
			}
		}
		return h.MCPServer(up)
	}, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: h.Log})
}

// MCPManifest is GET /.well-known/mcp.json: the public tools and how to reach them.
func (h *Handlers) MCPManifest() kit.Schema {
	var tools []kit.Schema
	for _, t := range h.MCPTools() {
		if t.Gold {
			continue
		}
		tools = append(tools, kit.Schema{"name": t.Name, "description": t.Description, "input_schema": h.toolInputSchema(t), "endpoint": kit.Schema{"method": t.Method, "path": t.Path}})
	}
	return kit.Schema{
		"schema_version": "1.0",
		"name":           "ounce",
		"description":    "Ounce: live precious-metals prices, 75 years of history, Stack Signal market intelligence, COMEX vault inventory and stacking calculators. Gold members' keys also unlock get_portfolio, get_analytics and add_holding.",
		"url":            h.Site.BaseURL + "/mcp",
		"transport":      "streamable-http",
		"auth":           kit.Schema{"type": "none"},
		"tools":          tools,
	}
}
