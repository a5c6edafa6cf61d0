package portfoliohttp

import (
	"net/http"
	"unicode/utf8"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
)

// ProductJSON is one catalogue product: what the add-holding picker fills in.
type ProductJSON struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Metal   string   `json:"metal" schema:"enum=metals"`
	FineOz  kit.Num  `json:"fine_oz" doc:"Pure metal in one unit, troy ounces (for per_face products, per $1 of face value)."`
	Purity  kit.Num  `json:"purity" doc:"Fineness as a fraction, e.g. 0.9999 or 0.9167."`
	Form    string   `json:"form" schema:"enum=coin|bar|round|junk"`
	PerFace bool     `json:"per_face" doc:"One unit is $1 of face value (junk silver): $10 face of 90% is 10 units, 7.15 oz."`
	Aliases []string `json:"aliases" doc:"Other names it goes by."`
}

// ProductsJSON is the body of GET /v1/products.
type ProductsJSON struct {
	Products []ProductJSON `json:"products"`
}

func productJSON(p metals.Product) ProductJSON {
	a := p.Aliases
	if a == nil {
		a = []string{}
	}
	return ProductJSON{ID: p.ID, Name: p.Name, Metal: string(p.Metal), FineOz: kit.Ounces(p.FineOz), Purity: kit.Purity(p.Purity), Form: string(p.Form), PerFace: p.PerFace, Aliases: a}
}

// APIProducts answers GET /v1/products.
func (h *Handlers) APIProducts(c *fiber.Ctx) error {
	m, err := kit.ParseMetalParam(c.Query("metal"), "")
	if err != nil {
		return err
	}
	q := c.Query("q")
	if utf8.RuneCountInString(q) > 100 {
		return apperr.InvalidField("q", "must be at most 100 characters")
	}
	out := []ProductJSON{}
	for _, p := range metals.SearchProducts(q, metals.Metal(m)) {
		out = append(out, productJSON(p))
	}
	c.Set(fiber.HeaderCacheControl, "public, max-age=3600")
	return kit.WriteJSON(c, http.StatusOK, ProductsJSON{Products: out})
}

// productRoutes is the catalogue route.
func (h *Handlers) productRoutes() []kit.APIRoute {
	return []kit.APIRoute{
		{Method: "GET", Path: "/v1/products", Auth: kit.AuthNone, Handler: h.APIProducts, OperationID: "listProducts", Tag: "Portfolio",
			Summary:     "The product catalogue: common coins, bars, rounds and junk silver",
			Description: "What the add-holding form's picker offers: each product's metal, fine weight and purity, so a holding can be entered by name. Matches every word of q against name and aliases (any case), best first; without q, the whole catalogue in order.",
			Params: []kit.Param{
				{Name: "q", In: "query", Description: "Words to match.", Schema: kit.Schema{"type": "string", "maxLength": 100}, Example: "maple"},
				kit.MetalFilter("silver"),
			},
			Responses: []kit.Response{
				{Status: 200, Description: "The matching products.", Schema: pfSchema(ProductsJSON{})},
				{Status: 400, Description: "metal is not a metal, or q is too long."},
			},
			Example: "GET /v1/products?q=maple&metal=silver"},
	}
}
