package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ouncehq/ounce/db"
)

type bearerTransport struct{ key string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.key != "" {
		r.Header.Set("Authorization", "Bearer "+b.key)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func mcpSession(t *testing.T, base, key string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	c := mcp.NewClient(&mcp.Implementation{Name: "ounce-test", Version: "1"}, nil)
	s, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{key}}}, nil)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func toolNames(t *testing.T, s *mcp.ClientSession) []string {
	res, err := s.ListTools(context.Background(), &mcp.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tl := range res.Tools {
		out = append(out, tl.Name)
	}
	sort.Strings(out)
	return out
}

func callTool(t *testing.T, s *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var body map[string]any
	if !res.IsError {
		text := res.Content[0].(*mcp.TextContent).Text
		if err := json.Unmarshal([]byte(text), &body); err != nil {
			t.Fatalf("%s: text content is not JSON: %s", name, text)
		}
	}
	return res, body
}

func TestMCPServerPublicAndGoldTools(t *testing.T) {
	e := marketEnv(t, sqliteStore(t), true)
	_, goldKey := e.user("gold@example.com", db.TierGold)
	_, freeKey := e.user("free@example.com", db.TierFree)
	base := e.live()

	public := mcpSession(t, base, "")
	names := toolNames(t, public)
	for _, want := range []string{"get_junk_silver", "get_price_history", "get_speculation", "get_spot_prices", "get_stack_signal", "get_vault_watch"} {
		if !contains(names, want) {
			t.Fatalf("public tools %v lack %s", names, want)
		}
	}
	if contains(names, "get_portfolio") || contains(names, "add_holding") {
		t.Fatalf("anonymous session sees gold tools: %v", names)
	}
	if free := toolNames(t, mcpSession(t, base, freeKey)); contains(free, "get_portfolio") {
		t.Fatalf("free member sees gold tools: %v", free)
	}

	// Same results as the REST twins.
	_, prices := callTool(t, public, "get_spot_prices", nil)
	rest := e.api("GET", "/v1/prices", "", nil).JSON(t)
	if !jsonEqual(prices, rest) {
		t.Fatalf("get_spot_prices differs from /v1/prices:\n%v\n%v", prices, rest)
	}
	_, junk := callTool(t, public, "get_junk_silver", map[string]any{"dimes": 10, "basis": "circulated"})
	if !jsonEqual(junk, e.api("GET", "/v1/junk-silver?dimes=10&basis=circulated", "", nil).JSON(t)) || junk["total_melt_value"] != 22.31 {
		t.Fatalf("get_junk_silver: %v", junk)
	}
	_, hist := callTool(t, public, "get_price_history", map[string]any{"metal": "gold", "range": "ALL", "max_points": 50})
	if hist["count"] != 50.0 || hist["from"] != "1950-01-01" {
		t.Fatalf("get_price_history: %v %v", hist["count"], hist["from"])
	}
	if err := e.app.Intel.EnsureSeed(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, signal := callTool(t, public, "get_stack_signal", map[string]any{"limit": 5, "category": "SYNTHESIS"})
	if !jsonEqual(signal, e.api("GET", "/v1/stack-signal?limit=5&category=SYNTHESIS", "", nil).JSON(t)) || signal["limit"] != 5.0 {
		t.Fatalf("get_stack_signal: %v", signal)
	}
	_, vault := callTool(t, public, "get_vault_watch", map[string]any{"metal": "gold", "days": 10})
	if !jsonEqual(vault, e.api("GET", "/v1/vault-watch?metal=gold&days=10", "", nil).JSON(t)) || vault["metal"] != "gold" {
		t.Fatalf("get_vault_watch: %v", vault)
	}
	if res, _ := callTool(t, public, "get_vault_watch", map[string]any{"days": 400}); !res.IsError {
		t.Fatal("days=400 accepted")
	}
	_, spec := callTool(t, public, "get_speculation", map[string]any{"silver": 62.4})
	if spec["multipliers"].(map[string]any)["silver"] != 2.0 || spec["portfolio"] != nil {
		t.Fatalf("get_speculation: %v", spec)
	}

	// Bad arguments are tool errors naming the field, like the REST 400s.
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"get_price_history", map[string]any{"range": "1Y"}, "metal"},
		{"get_price_history", map[string]any{"metal": "tin"}, "metal"},
		{"get_junk_silver", map[string]any{"dimes": -1}, "dimes"},
		{"get_junk_silver", map[string]any{"pennies": 3}, "pennies"},
		{"get_speculation", map[string]any{"gold": 0}, "gold"},
	} {
		res, _ := callTool(t, public, c.tool, c.args)
		if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, c.want) {
			t.Errorf("%s %v: isError=%v %v", c.tool, c.args, res.IsError, res.Content)
		}
	}

	// A Gold key unlocks the portfolio tools, acting as that member only.
	gold := mcpSession(t, base, goldKey)
	gnames := toolNames(t, gold)
	for _, want := range goldToolNames {
		if !contains(gnames, want) {
			t.Fatalf("gold tools %v lack %s", gnames, want)
		}
	}
	res, h := callTool(t, gold, "add_holding", map[string]any{"metal": "silver", "quantity": 10, "weight_oz": 1, "purchase_price": 25})
	if res.IsError || h["total_oz"] != 10.0 {
		t.Fatalf("add_holding: %v %v", res.Content, h)
	}
	res, _ = callTool(t, gold, "add_holding", map[string]any{"metal": "silver", "quantity": 0, "weight_oz": 1, "purchase_price": 25})
	if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "quantity") {
		t.Fatalf("bad add_holding: %v", res.Content)
	}
	if list := e.api("GET", "/v1/holdings", goldKey, nil).JSON(t); list["total"] != 1.0 {
		t.Fatalf("holdings after MCP add: %v", list["total"])
	}
	_, pf := callTool(t, gold, "get_portfolio", nil)
	if !jsonEqual(pf, e.api("GET", "/v1/portfolio", goldKey, nil).JSON(t)) || pf["holdings_count"] != 1.0 {
		t.Fatalf("get_portfolio: %v", pf)
	}
	_, an := callTool(t, gold, "get_analytics", nil)
	if !jsonEqual(an, e.api("GET", "/v1/analytics", goldKey, nil).JSON(t)) {
		t.Fatalf("get_analytics differs from /v1/analytics: %v", an)
	}
	_, specGold := callTool(t, gold, "get_speculation", map[string]any{"silver": 62.4})
	if specGold["portfolio"].(map[string]any)["projected_value"] != 624.0 {
		t.Fatalf("speculation with key: %v", specGold["portfolio"])
	}
}

func TestManifestsAndLLMsText(t *testing.T) {
	e := newEnv(t, sqliteStore(t), withMarket(t))
	m := e.do(mustReq("GET", "/.well-known/mcp.json")).JSON(t)
	if m["schema_version"] != "1.0" || m["url"] != "http://ounce.test/mcp" || m["transport"] != "streamable-http" || m["auth"].(map[string]any)["type"] != "none" {
		t.Fatalf("mcp.json header: %v", m)
	}
	tools := m["tools"].([]any)
	for _, tl := range tools {
		tm := tl.(map[string]any)
		if tm["input_schema"].(map[string]any)["type"] != "object" || tm["endpoint"].(map[string]any)["path"] == "" || tm["description"] == "" {
			t.Fatalf("tool entry: %v", tm)
		}
		// Each tool's REST twin really is a route of the API.
		ep := tm["endpoint"].(map[string]any)
		found := false
		for _, r := range e.srv.Handlers().APIRoutes() {
			found = found || (r.Method == ep["method"] && r.Path == ep["path"])
		}
		if !found {
			t.Fatalf("%s: endpoint %v is not an API route", tm["name"], ep)
		}
	}
	p := e.do(mustReq("GET", "/.well-known/ai-plugin.json")).JSON(t)
	auth := p["auth"].(map[string]any)
	if p["schema_version"] != "v1" || auth["type"] != "user_http" || auth["authorization_type"] != "bearer" || p["api"].(map[string]any)["url"] != "http://ounce.test/openapi.json" || p["legal_info_url"] == "" || p["contact_email"] == "" {
		t.Fatalf("ai-plugin.json: %v", p)
	}
	r := e.do(mustReq("GET", "/llms.txt"))
	txt := string(r.Body)
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("llms.txt content type %q", r.Header.Get("Content-Type"))
	}
	for _, route := range e.srv.Handlers().APIRoutes() {
		line := "`" + route.Method + " " + openAPIPath(route.Path) + "`"
		if !strings.Contains(txt, line) {
			t.Errorf("llms.txt lacks %s", line)
		}
	}
	for _, want := range []string{"Authorization: Bearer", "/openapi.json", "/.well-known/mcp.json", "curl "} {
		if !strings.Contains(txt, want) {
			t.Errorf("llms.txt lacks %q", want)
		}
	}
}

func TestAPIDocsPageShowsOwnKeyPrefix(t *testing.T) {
	e := newEnv(t, sqliteStore(t), withMarket(t))
	b := e.browser()
	b.signUp("docs@example.com")
	b.get("/settings/developer")
	key, _ := doc(t, b.post("/settings/developer/keys", map[string][]string{"name": {"docs"}}, true)).Find("#new-key").Attr("value")
	d := doc(t, b.get("/docs/api"))
	if d.Find("article#listHoldings pre").Length() != 1 || !strings.Contains(d.Find("article#listHoldings pre").Text(), key[:12]+"…") || strings.Contains(d.Text(), key) {
		t.Fatalf("docs curl does not use the key prefix (or leaks the key): %q", d.Find("article#listHoldings pre").Text())
	}
	if d.Find("article#getPriceHistory table td").Length() == 0 {
		t.Fatal("parameters table missing")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func jsonEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// goldToolNames are the tools only a Gold member's key lists.
var goldToolNames = []string{"get_portfolio", "get_analytics", "add_holding", "preview_sale", "record_sale", "get_tax_report"}
