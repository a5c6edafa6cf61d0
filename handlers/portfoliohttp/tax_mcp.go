package portfoliohttp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// taxMCPTools are the disposal and gains-report tools: the same use cases as POST
// /v1/sales/preview, POST /v1/sales and GET /v1/tax/report (JSON only).
func (h *Handlers) taxMCPTools() []kit.MCPTool {
	body := pfSchema(DisposalCreateJSON{})
	return []kit.MCPTool{
		{Name: "preview_sale", Description: "Preview selling units of one product across your lots (Gold members; nothing is stored): for each lot method (fifo, lifo, hifo, average) the lots it would take, cost basis, gain, holding period and tax category under your tax_jurisdiction, and the method with the least gain. Arguments as POST /v1/sales. Not tax advice.",
			Method: "POST", Path: "/v1/sales/preview", Gold: true, Schema: body,
			Call: func(ctx context.Context, _ map[string]string, raw json.RawMessage, u *account.User) (any, error) {
				return onDisposal(ctx, *u, raw, h.portfolio.PreviewDisposal, previewJSON)
			}},
		{Name: "record_sale", Description: "Record a sale (or trade, gift, loss) of units of one product across your lots (Gold members): product_name, metal, quantity, price_per_unit, fees, sold_on, currency (default the lots' own; lots bought in another count at the ECB rate of their purchase day) and method (fifo, lifo, hifo, average, or specific with lots [{holding_id, quantity}]); recorded as one slice per lot, all or none. More units than held is refused. Not tax advice.",
			Method: "POST", Path: "/v1/sales", Gold: true, Schema: body,
			Call: func(ctx context.Context, _ map[string]string, raw json.RawMessage, u *account.User) (any, error) {
				return onDisposal(ctx, *u, raw, h.portfolio.RecordDisposal, disposalCreatedJSON)
			}},
		{Name: "get_tax_report", Description: "Your gains report of one calendar year (Gold members), as JSON: every disposal slice with dates acquired and sold, proceeds, cost basis, gain, term and category under your tax_jurisdiction, totals per category, in your display currency (or currency). Not tax advice.",
			Method: "GET", Path: "/v1/tax/report", Gold: true,
			Schema: kit.Schema{"type": "object", "additionalProperties": false, "properties": kit.Schema{
				"year":     kit.Schema{"type": "integer", "minimum": portfolio.MinTaxYear, "maximum": portfolio.MaxTaxYear, "description": "Calendar year (default this year)."},
				"currency": kit.Schema{"type": "string", "minLength": 3, "maxLength": 3, "description": "ISO 4217 code the amounts are in (default your display currency)."},
			}},
			Call: func(ctx context.Context, args map[string]string, _ json.RawMessage, u *account.User) (any, error) {
				year := h.Now().UTC().Year()
				if v := strings.TrimSpace(args["year"]); v != "" {
					y, err := strconv.Atoi(v)
					if err != nil || y < portfolio.MinTaxYear || y > portfolio.MaxTaxYear {
						return nil, apperr.InvalidField("year", fmt.Sprintf("must be a year between %d and %d", portfolio.MinTaxYear, portfolio.MaxTaxYear))
					}
					year = y
				}
				cur, err := h.portfolio.Currency(ctx, *u, args["currency"], "currency")
				if err != nil {
					return nil, err
				}
				r, err := h.portfolio.TaxReportIn(ctx, *u, year, cur)
				if err != nil {
					return nil, err
				}
				return TaxReportToJSON(r), nil
			}},
	}
}

// onDisposal runs a disposal use case (preview or record) on a body shaped as POST /v1/sales
// takes it, and renders its answer with toJSON.
func onDisposal[T, J any](ctx context.Context, u account.User, raw []byte,
	do func(context.Context, account.User, portfolio.DisposalInput) (T, error), toJSON func(T) J) (J, error) {
	var out J
	in, err := portfolio.ParseDisposalJSON(raw)
	if err != nil {
		return out, err
	}
	v, err := do(ctx, u, in)
	if err != nil {
		return out, err
	}
	return toJSON(v), nil
}

// disposalCreatedJSON is the answer of POST /v1/sales.
func disposalCreatedJSON(d portfolio.Disposal) DisposalCreatedJSON {
	return DisposalCreatedJSON{Disposal: DisposalToJSON(d)}
}
