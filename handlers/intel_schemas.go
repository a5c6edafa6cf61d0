package handlers

import (
	"sort"

	"github.com/ouncehq/ounce/internal/intel"
)

// Schema helpers for the market-intelligence routes.
func intelStr() Schema  { return Schema{"type": "string"} }
func intelNum() Schema  { return Schema{"type": "number"} }
func intelInt() Schema  { return Schema{"type": "integer"} }
func intelBool() Schema { return Schema{"type": "boolean"} }
func intelDate() Schema { return Schema{"type": "string", "format": "date"} }
func intelTime() Schema { return Schema{"type": "string", "format": "date-time"} }
func intelNullable(s Schema) Schema {
	out := Schema{"nullable": true}
	for k, v := range s {
		out[k] = v
	}
	return out
}

// intelObject builds an object schema whose every listed property is required.
func intelObject(props Schema) Schema {
	req := make([]string, 0, len(props))
	for k := range props {
		req = append(req, k)
	}
	sort.Strings(req)
	return Schema{"type": "object", "required": req, "properties": props}
}

func intelMetals() Schema { return Schema{"type": "array", "items": metalSchema()} }

// intelRef refers to one of intelSchemas as a shared component once the document carries
// them, and spells it out in place until then, so the document always resolves.
func (h *Handlers) intelRef(name string) Schema {
	if _, ok := h.areaSchemas()[name]; ok {
		return Schema{"$ref": "#/components/schemas/" + name}
	}
	return h.intelSchemas()[name]
}

// intelSchemas are the shared component schemas of the market-intel, Stack Signal, generation
// and Vault Watch routes. Each is self-contained (no references between them).
func (h *Handlers) intelSchemas() map[string]Schema {
	newsCats := intel.NewsCategoryNames()
	articleCats := intel.ArticleCategories()
	source := intelObject(Schema{"name": intelStr(), "title": intelStr(), "url": Schema{"type": "string", "description": "Link to the original; empty when the outlet gave none."}})
	depository := intelObject(Schema{
		"name": intelStr(), "registered_oz": intelNum(), "pledged_oz": intelNum(), "eligible_oz": intelNum(), "total_oz": intelNum(),
	})
	day := intelObject(Schema{
		"date": intelDate(), "registered_oz": intelNum(), "eligible_oz": intelNum(), "combined_oz": intelNum(),
		"registered_change_oz": intelNum(), "eligible_change_oz": intelNum(), "combined_change_oz": intelNum(),
	})
	return map[string]Schema{
		"MarketIntelItem": intelObject(Schema{
			"id":           intelStr(),
			"title":        intelStr(),
			"url":          intelStr(),
			"source":       intelStr(),
			"published_at": intelTime(),
			"category":     Schema{"type": "string", "enum": newsCats},
			"metals":       intelMetals(),
			"relevance":    Schema{"type": "integer", "minimum": 0, "maximum": 100, "description": "How much the item matters to a holder of physical metal, 0–100."},
			"analysis":     Schema{"type": "string", "description": "A short note on what the headline means for a stacker."},
			"demo":         Schema{"type": "boolean", "description": "True for bundled sample content shown before any real news was fetched."},
		}),
		"ArticleSource": source,
		"StackSignalArticle": intelObject(Schema{
			"id":         intelStr(),
			"slug":       intelStr(),
			"title":      intelStr(),
			"summary":    intelStr(),
			"commentary": Schema{"type": "string", "description": "Plain text; paragraphs are separated by a blank line."},
			"category":   Schema{"type": "string", "enum": articleCats},
			"metals":     intelMetals(),
			"sources":    Schema{"type": "array", "items": source},
			"prices_at_publish": intelObject(Schema{
				"gold": intelNullable(intelNum()), "silver": intelNullable(intelNum()), "platinum": intelNullable(intelNum()), "palladium": intelNullable(intelNum()),
			}),
			"published_at":  intelTime(),
			"is_synthesis":  intelBool(),
			"view_count":    Schema{"type": "integer", "minimum": 0},
			"like_count":    Schema{"type": "integer", "minimum": 0},
			"comment_count": Schema{"type": "integer", "minimum": 0},
			"demo":          Schema{"type": "boolean", "description": "True when written from bundled sample stories."},
			"writer":        Schema{"type": "string", "description": `"built-in" or "llm:<model>".`},
		}),
		"FeedHealth": intelObject(Schema{
			"url": intelStr(), "name": intelStr(), "last_ok": intelNullable(intelTime()), "last_attempt": intelNullable(intelTime()), "last_error": intelNullable(intelStr()),
		}),
		"VaultFetch":      intelObject(Schema{"metal": metalSchema(), "as_of": intelNullable(intelDate()), "error": intelNullable(intelStr())}),
		"VaultDepository": depository,
		"VaultDay":        day,
		"VaultWatch": intelObject(Schema{
			"metal":                       metalSchema(),
			"as_of":                       Schema{"type": "string", "format": "date", "description": "CME activity date of the newest stored report."},
			"stale":                       Schema{"type": "boolean", "description": "True when the newest report is older than a normal publishing gap."},
			"source":                      intelStr(),
			"registered_oz":               intelNum(),
			"eligible_oz":                 intelNum(),
			"combined_oz":                 intelNum(),
			"registered_change_oz":        Schema{"type": "number", "description": "Change since the previous stored report; negative is a drain."},
			"eligible_change_oz":          intelNum(),
			"combined_change_oz":          intelNum(),
			"registered_share_pct":        intelNum(),
			"days_to_zero":                Schema{"type": "number", "nullable": true, "description": "Business days until registered stocks run out at registered_per_business_day; null, with days_to_zero_reason, when fewer than two reports fall in the drain window or registered stocks are not falling."},
			"days_to_zero_reason":         Schema{"type": "string", "nullable": true, "description": "Why days_to_zero is null, in reader terms; null when it is given."},
			"registered_per_business_day": Schema{"type": "number", "nullable": true, "description": "Change in registered ounces per CME business day between the activity dates drain_from and drain_to (negative is a drain); null when fewer than two reports fall in the window."},
			"drain_from":                  Schema{"type": "string", "format": "date", "nullable": true, "description": "Activity date of the oldest report inside the drain window."},
			"drain_to":                    Schema{"type": "string", "format": "date", "nullable": true, "description": "Activity date of the newest report inside the drain window (as_of)."},
			"drain_business_days":         Schema{"type": "integer", "description": "CME business days between drain_from and drain_to; 0 without a rate."},
			"drain_window_business_days":  Schema{"type": "integer", "description": "The stated window the drain is measured over: this many CME business days ending at as_of."},
			"open_interest_oz":            intelNullable(intelNum()),
			"open_interest_as_of":         intelNullable(intelDate()),
			"oversubscribed_ratio":        Schema{"type": "number", "nullable": true, "description": "Open interest in ounces per registered ounce; null when open interest is unknown."},
			"depositories":                Schema{"type": "array", "items": depository},
			"depositories_as_of":          intelNullable(intelDate()),
			"history":                     Schema{"type": "array", "items": day},
		}),
	}
}
