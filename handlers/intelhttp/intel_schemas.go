package intelhttp

import (
	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/ouncehq/ounce/internal/intel"
)

// intelRef refers to one of the area's named schemas, which the OpenAPI document always
// carries as shared components.
func (h *Handlers) intelRef(name string) kit.Schema {
	if _, ok := h.Schemas()[name]; !ok {
		panic("intelRef: no schema named " + name)
	}
	return kit.Schema{"$ref": "#/components/schemas/" + name}
}

// Schemas are the shared component schemas of the market-intel, Stack Signal, generation
// and Vault Watch routes. Each is self-contained (no references between them).
func (h *Handlers) Schemas() map[string]kit.Schema {
	newsCats := intel.NewsCategoryNames()
	articleCats := intel.ArticleCategories()
	source := kit.Object(kit.Schema{"name": kit.StrSchema(), "title": kit.StrSchema(), "url": kit.Schema{"type": "string", "description": "Link to the original; empty when the outlet gave none."}})
	depository := kit.Object(kit.Schema{
		"name": kit.StrSchema(), "registered_oz": kit.NumSchema(""), "pledged_oz": kit.NumSchema(""), "eligible_oz": kit.NumSchema(""), "total_oz": kit.NumSchema(""),
	})
	day := kit.Object(kit.Schema{
		"date": kit.DateSchema(), "registered_oz": kit.NumSchema(""), "eligible_oz": kit.NumSchema(""), "combined_oz": kit.NumSchema(""),
		"registered_change_oz": kit.NumSchema(""), "eligible_change_oz": kit.NumSchema(""), "combined_change_oz": kit.NumSchema(""),
	})
	return map[string]kit.Schema{
		"MarketIntelItem": kit.Object(kit.Schema{
			"id":           kit.StrSchema(),
			"title":        kit.StrSchema(),
			"url":          kit.StrSchema(),
			"source":       kit.StrSchema(),
			"published_at": kit.TimeSchema(),
			"category":     kit.Schema{"type": "string", "enum": newsCats},
			"metals":       kit.MetalsSchema(),
			"relevance":    kit.Schema{"type": "integer", "minimum": 0, "maximum": 100, "description": "How much the item matters to a holder of physical metal, 0–100."},
			"analysis":     kit.Schema{"type": "string", "description": "A short note on what the headline means for a stacker."},
			"demo":         kit.Schema{"type": "boolean", "description": "True for bundled sample content shown before any real news was fetched."},
		}),
		"ArticleSource": source,
		"StackSignalArticle": kit.Object(kit.Schema{
			"id":         kit.StrSchema(),
			"slug":       kit.StrSchema(),
			"title":      kit.StrSchema(),
			"summary":    kit.StrSchema(),
			"commentary": kit.Schema{"type": "string", "description": "Plain text; paragraphs are separated by a blank line."},
			"category":   kit.Schema{"type": "string", "enum": articleCats},
			"metals":     kit.MetalsSchema(),
			"sources":    kit.Schema{"type": "array", "items": source},
			"prices_at_publish": kit.Object(kit.Schema{
				"gold": kit.Nullable(kit.NumSchema("")), "silver": kit.Nullable(kit.NumSchema("")), "platinum": kit.Nullable(kit.NumSchema("")), "palladium": kit.Nullable(kit.NumSchema("")),
			}),
			"published_at":  kit.TimeSchema(),
			"is_synthesis":  kit.BoolSchema(),
			"view_count":    kit.Schema{"type": "integer", "minimum": 0},
			"like_count":    kit.Schema{"type": "integer", "minimum": 0},
			"comment_count": kit.Schema{"type": "integer", "minimum": 0},
			"demo":          kit.Schema{"type": "boolean", "description": "True when written from bundled sample stories."},
			"writer":        kit.Schema{"type": "string", "description": `"built-in" or "llm:<model>".`},
		}),
		"FeedHealth": kit.Object(kit.Schema{
			"url": kit.StrSchema(), "name": kit.StrSchema(), "last_ok": kit.Nullable(kit.TimeSchema()), "last_attempt": kit.Nullable(kit.TimeSchema()), "last_error": kit.Nullable(kit.StrSchema()),
		}),
		"VaultFetch":      kit.Object(kit.Schema{"metal": kit.MetalSchema(), "as_of": kit.Nullable(kit.DateSchema()), "error": kit.Nullable(kit.StrSchema())}),
		"VaultDepository": depository,
		"VaultDay":        day,
		"VaultWatch": kit.Object(kit.Schema{
			"metal":                       kit.MetalSchema(),
			"as_of":                       kit.Schema{"type": "string", "format": "date", "description": "CME activity date of the newest stored report."},
			"stale":                       kit.Schema{"type": "boolean", "description": "True when the newest report is older than a normal publishing gap."},
			"source":                      kit.StrSchema(),
			"registered_oz":               kit.NumSchema(""),
			"eligible_oz":                 kit.NumSchema(""),
			"combined_oz":                 kit.NumSchema(""),
			"registered_change_oz":        kit.Schema{"type": "number", "format": "double", "description": "Change since the previous stored report; negative is a drain."},
			"eligible_change_oz":          kit.NumSchema(""),
			"combined_change_oz":          kit.NumSchema(""),
			"registered_share_pct":        kit.NumSchema(""),
			"days_to_zero":                kit.Schema{"type": "number", "format": "double", "nullable": true, "description": "Business days until registered stocks run out at registered_per_business_day; null, with days_to_zero_reason, when fewer than two reports fall in the drain window or registered stocks are not falling."},
			"days_to_zero_reason":         kit.Schema{"type": "string", "nullable": true, "description": "Why days_to_zero is null, in reader terms; null when it is given."},
			"registered_per_business_day": kit.Schema{"type": "number", "format": "double", "nullable": true, "description": "Change in registered ounces per CME business day between the activity dates drain_from and drain_to (negative is a drain); null when fewer than two reports fall in the window."},
			"drain_from":                  kit.Schema{"type": "string", "format": "date", "nullable": true, "description": "Activity date of the oldest report inside the drain window."},
			"drain_to":                    kit.Schema{"type": "string", "format": "date", "nullable": true, "description": "Activity date of the newest report inside the drain window (as_of)."},
			"drain_business_days":         kit.Schema{"type": "integer", "description": "CME business days between drain_from and drain_to; 0 without a rate."},
			"drain_window_business_days":  kit.Schema{"type": "integer", "description": "The stated window the drain is measured over: this many CME business days ending at as_of."},
			"open_interest_oz":            kit.Nullable(kit.NumSchema("")),
			"open_interest_as_of":         kit.Nullable(kit.DateSchema()),
			"oversubscribed_ratio":        kit.Schema{"type": "number", "format": "double", "nullable": true, "description": "Open interest in ounces per registered ounce; null when open interest is unknown."},
			"depositories":                kit.Schema{"type": "array", "items": depository},
			"depositories_as_of":          kit.Nullable(kit.DateSchema()),
			"history":                     kit.Schema{"type": "array", "items": day},
		}),
	}
}
