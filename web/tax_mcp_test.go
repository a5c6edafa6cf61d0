package web_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ouncehq/ounce/db"
)

// TestMCPDisposalTools: preview_sale, record_sale and get_tax_report are Gold tools over the
// MCP endpoint with input schemas; they answer what their REST twins answer, record a
// specific-lot disposal (lots as an array), and refuse bad arguments naming the field.
func TestMCPDisposalTools(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		_, key := e.user("mcp-tax@example.com", db.TierGold)
		_, freeKey := e.user("mcp-tax-free@example.com", db.TierFree)
		a := taxLot(t, e, key, "silver", "Eagle", 10, "20.00", "2024-01-10")
		b := taxLot(t, e, key, "silver", "Eagle", 10, "30.00", "2025-06-01")
		base := e.live()

		if free := toolNames(t, mcpSession(t, base, freeKey)); contains(free, "record_sale") || contains(free, "get_tax_report") {
			t.Fatalf("a free member sees the disposal tools: %v", free)
		}
		gold := mcpSession(t, base, key)
		res, err := gold.ListTools(context.Background(), &mcp.ListToolsParams{})
		if err != nil {
			t.Fatal(err)
		}
		schemas := map[string]string{}
		for _, tl := range res.Tools {
			s, _ := json.Marshal(tl.InputSchema)
			schemas[tl.Name] = string(s)
		}
		for name, want := range map[string][]string{"preview_sale": {`"lots"`, `"product_name"`}, "record_sale": {`"lots"`, `"method"`}, "get_tax_report": {`"year"`, `"currency"`}} {
			for _, w := range want {
				if !strings.Contains(schemas[name], w) {
					t.Errorf("%s's schema lacks %s: %s", name, w, schemas[name])
				}
			}
		}
		if strings.Contains(schemas["get_tax_report"], `"format"`) {
			t.Errorf("get_tax_report offers a format: %s", schemas["get_tax_report"])
		}

		sale := map[string]any{"product_name": "Eagle", "metal": "silver", "quantity": 15, "price_per_unit": 32, "fees": 3, "sold_on": "2026-11-01"}
		_, preview := callTool(t, gold, "preview_sale", sale)
		if !jsonEqual(preview, e.api("POST", "/v1/sales/preview", key, sale).JSON(t)) || preview["least_gain_method"] != "lifo" {
			t.Fatalf("preview_sale differs from POST /v1/sales/preview: %v", preview)
		}
		if n := e.api("GET", "/v1/sales", key, nil).JSON(t)["total"]; n != 0.0 {
			t.Fatalf("preview_sale stored sales: %v", n)
		}

		specific := map[string]any{"product_name": "Eagle", "metal": "silver", "price_per_unit": 32, "sold_on": "2026-11-01", "method": "specific",
			"lots": []map[string]any{{"holding_id": a, "quantity": 2}, {"holding_id": b, "quantity": 3}}}
		r, rec := callTool(t, gold, "record_sale", specific)
		if r.IsError {
			t.Fatalf("record_sale: %v", r.Content)
		}
		d := rec["disposal"].(map[string]any)
		if d["quantity"] != 5.0 || d["gain"] != 30.0 || len(d["slices"].([]any)) != 2 { // 160 − (40 + 90)
			t.Fatalf("record_sale: %v", d)
		}

		_, rep := callTool(t, gold, "get_tax_report", map[string]any{"year": 2026})
		if !jsonEqual(rep, e.api("GET", "/v1/tax/report?year=2026", key, nil).JSON(t)) || rep["currency"] != "USD" {
			t.Fatalf("get_tax_report differs from GET /v1/tax/report: %v", rep)
		}
		if tot := rep["totals"].(map[string]any)["total"]; tot != 30.0 {
			t.Errorf("report total %v, want 30", tot)
		}

		for _, c := range []struct {
			tool string
			args map[string]any
			want string
		}{
			{"record_sale", map[string]any{"product_name": "Eagle", "metal": "silver", "quantity": 99, "price_per_unit": 32}, "quantity"},
			{"record_sale", map[string]any{"product_name": "Eagle", "metal": "tin", "quantity": 1, "price_per_unit": 32}, "metal"},
			{"preview_sale", map[string]any{"product_name": "Eagle", "metal": "silver", "quantity": 1, "price_per_unit": 32, "colour": "red"}, "colour"},
			{"get_tax_report", map[string]any{"year": 1800}, "year"},
			{"get_tax_report", map[string]any{"currency": "XYZ"}, "currency"},
			{"get_tax_report", map[string]any{"format": "pdf"}, "format"},
		} {
			res, _ := callTool(t, gold, c.tool, c.args)
			if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, c.want) {
				t.Errorf("%s %v: isError=%v %v", c.tool, c.args, res.IsError, res.Content)
			}
		}
		if n := e.api("GET", "/v1/sales", key, nil).JSON(t)["total"]; n != 2.0 {
			t.Errorf("sales after the refusals: %v, want the 2 slices", n)
		}
	})
}
