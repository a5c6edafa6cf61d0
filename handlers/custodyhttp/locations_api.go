package custodyhttp

import (
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/handlers/portfoliohttp"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/custody"
)

// LocationJSON is the wire form of a storage location.
type LocationJSON struct {
	ID            string    `json:"id"`
	Name          string    `json:"name"`
	Kind          string    `json:"kind" schema:"enum=Kinds" doc:"home (a safe at home), bank_box (a bank safe-deposit box), vault (a private vault), dealer (a dealer's storage), ira (an IRA custodian)."`
	InsuredValue  *kit.Num  `json:"insured_value" doc:"What the location is insured for, USD; null when not given."`
	Notes         string    `json:"notes"`
	TaxAdvantaged bool      `json:"tax_advantaged" doc:"true for an IRA custodian: its lots are in a tax-advantaged account."`
	Lots          int64     `json:"lots" doc:"Your holdings kept there."`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
}

// LocationCreateJSON is the body of POST /v1/locations (and, every field optional, PATCH).
type LocationCreateJSON struct {
	Name         string   `json:"name" schema:"maxLength=MaxName"`
	Kind         string   `json:"kind" schema:"enum=Kinds"`
	InsuredValue *kit.Num `json:"insured_value" schema:"optional,min=0" doc:"USD, at most 2 decimals; null clears it."`
	Notes        string   `json:"notes" schema:"optional,maxLength=MaxNotes"`
}

// LocationsJSON is the body of GET /v1/locations.
type LocationsJSON struct {
	Locations []LocationJSON `json:"locations" schema:"items.ref=Location"`
}

// MoveJSON is the body of POST /v1/holdings/{id}/move.
type MoveJSON struct {
	ToLocationID *string `json:"to_location_id" doc:"One of your locations, or null to make the lot unassigned."`
	Date         string  `json:"date" schema:"optional,format=date" doc:"When it moved, YYYY-MM-DD; default today; not in the future or before the purchase date."`
	Note         string  `json:"note" schema:"optional,maxLength=MaxMoveNote"`
}

// MoveResultJSON is the answer of a move.
type MoveResultJSON struct {
	Transfer portfoliohttp.TransferJSON `json:"transfer"`
}

func consts() kit.Consts {
	return kit.Consts{"Kinds": custody.Kinds, "MaxName": custody.MaxName, "MaxNotes": custody.MaxNotes, "MaxMoveNote": custody.MaxMoveNote,
		"BulkActions": custody.BulkActions, "MaxBulk": custody.MaxBulk}
}

func schema(v any) kit.Schema { return kit.SchemaOf(v, consts()) }

// LocationToJSON renders a location.
func LocationToJSON(l custody.Location) LocationJSON {
	out := LocationJSON{ID: l.ID, Name: l.Name, Kind: l.Kind, Notes: l.Notes, TaxAdvantaged: custody.TaxAdvantaged(l.Kind), Lots: l.Lots,
		CreatedAt: l.CreatedAt.UTC(), UpdatedAt: l.UpdatedAt.UTC()}
	if d, ok := custody.InsuredValue(l); ok {
		n := kit.Money(d)
		out.InsuredValue = &n
	}
	return out
}

// APIList answers GET /v1/locations.
func (h *Handlers) APIList(c *fiber.Ctx) error {
	return kit.MemberJSON(c, http.StatusOK, func(u account.User) ([]custody.Location, error) {
		return h.custody.Locations(h.Ctx(c), u)
	}, func(ls []custody.Location) LocationsJSON {
		return LocationsJSON{Locations: kit.MapSlice(ls, LocationToJSON)}
	})
}

// APIGet answers GET /v1/locations/{id}.
func (h *Handlers) APIGet(c *fiber.Ctx) error {
	return kit.MemberJSON(c, http.StatusOK, func(u account.User) (custody.Location, error) {
		return h.custody.Location(h.Ctx(c), u, c.Params("id"))
	}, LocationToJSON)
}

// APICreate answers POST /v1/locations.
func (h *Handlers) APICreate(c *fiber.Ctx) error {
	return kit.MemberBodyJSON(c, http.StatusCreated, custody.ParseLocationJSON, func(u account.User, in custody.LocationInput) (custody.Location, error) {
		return h.custody.CreateLocation(h.Ctx(c), u, in)
	}, func(l custody.Location) LocationJSON {
		c.Set(fiber.HeaderLocation, "/v1/locations/"+l.ID)
		return LocationToJSON(l)
	})
}

// APIUpdate answers PATCH /v1/locations/{id}.
func (h *Handlers) APIUpdate(c *fiber.Ctx) error {
	return kit.MemberBodyJSON(c, http.StatusOK, custody.ParseLocationJSON, func(u account.User, in custody.LocationInput) (custody.Location, error) {
		return h.custody.UpdateLocation(h.Ctx(c), u, strings.Clone(c.Params("id")), in)
	}, LocationToJSON)
}

// APIDelete answers DELETE /v1/locations/{id}.
func (h *Handlers) APIDelete(c *fiber.Ctx) error {
	return kit.MemberNoContent(c, func(u account.User) error {
		return h.custody.DeleteLocation(h.Ctx(c), u, c.Params("id"))
	})
}

// APIMove answers POST /v1/holdings/{id}/move.
func (h *Handlers) APIMove(c *fiber.Ctx) error {
	return kit.MemberJSON(c, http.StatusCreated, func(u account.User) (custody.Transfer, error) {
		in, hasTo, err := custody.ParseMoveJSON(c.Body())
		if err != nil {
			return custody.Transfer{}, err
		}
		return h.custody.Move(h.Ctx(c), u, strings.Clone(c.Params("id")), in, hasTo)
	}, func(t custody.Transfer) MoveResultJSON {
		return MoveResultJSON{Transfer: portfoliohttp.TransferToJSON(t)}
	})
}

// BulkJSON is the body of POST /v1/holdings/bulk.
type BulkJSON struct {
	IDs          []string `json:"ids" schema:"minItems=1,maxItems=MaxBulk" doc:"Your holdings' ids; one that is not yours (or does not exist) answers 404 naming it and nothing is changed."`
	Action       string   `json:"action" schema:"enum=BulkActions" doc:"move (to to_location_id, recording a transfer for each lot), tag (add tag) or untag (remove tag)."`
	ToLocationID *string  `json:"to_location_id" schema:"optional" doc:"move: one of your locations, or null to make the lots unassigned (required for move)."`
	Date         string   `json:"date" schema:"optional,format=date" doc:"move: when they moved, YYYY-MM-DD; default today; not in the future or before any lot's purchase date."`
	Note         string   `json:"note" schema:"optional,maxLength=MaxMoveNote" doc:"move: the transfers' note."`
	Tag          string   `json:"tag" schema:"optional,maxLength=40" doc:"tag and untag: the tag (letters, digits, spaces and - . /; stored lower-case)."`
}

// BulkResultJSON is the answer of a bulk action.
type BulkResultJSON struct {
	Updated int `json:"updated" doc:"How many lots were changed (every one named, or none)."`
}

// APIBulk answers POST /v1/holdings/bulk.
func (h *Handlers) APIBulk(c *fiber.Ctx) error {
	return kit.MemberBodyJSON(c, http.StatusOK, custody.ParseBulkJSON, func(u account.User, in custody.BulkInput) (int, error) {
		return h.custody.Bulk(h.Ctx(c), u, in)
	}, func(n int) BulkResultJSON { return BulkResultJSON{Updated: n} })
}
