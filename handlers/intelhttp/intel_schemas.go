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
	return kit.Ref(name)
}

// intelSchema generates the schema of a wire struct of the area (objects open).
func intelSchema(v any) kit.Schema {
	return kit.OpenSchemaOf(v, kit.Consts{"NewsCategories": intel.NewsCategoryNames(), "ArticleCategories": intel.ArticleCategories()})
}

// Schemas are the shared component schemas of the market-intel, Stack Signal, generation
// and Vault Watch routes, generated from their wire structs.
func (h *Handlers) Schemas() map[string]kit.Schema {
	return map[string]kit.Schema{
		"MarketIntelItem":    intelSchema(NewsItemJSON{}),
		"ArticleSource":      intelSchema(ArticleSourceJSON{}),
		"StackSignalArticle": intelSchema(ArticleJSON{}),
		"FeedHealth":         intelSchema(FeedHealthJSON{}),
		"VaultFetch":         intelSchema(VaultFetchJSON{}),
		"VaultDepository":    intelSchema(VaultDepositoryJSON{}),
		"VaultDay":           intelSchema(VaultDayJSON{}),
		"VaultWatch":         intelSchema(VaultWatchJSON{}),
	}
}
