package custodyhttp

import (
	"cmp"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/custody"
	"github.com/ouncehq/ounce/views/format"
	"github.com/ouncehq/ounce/views/pages"
)

func (h *Handlers) pageRoutes() []kit.PageRoute {
	return kit.PagesFor(kit.AuthGold, []kit.PageRoute{
		{Method: "GET", Path: "/locations", Handler: h.LocationsPage},
		{Method: "POST", Path: "/locations", Handler: h.LocationSave},
		{Method: "GET", Path: "/locations/statement", Handler: h.InventoryDownload},
		{Method: "GET", Path: "/locations/:id/edit", Handler: h.LocationEdit},
		{Method: "POST", Path: "/locations/:id/delete", Handler: h.LocationDelete},
		{Method: "POST", Path: "/locations/:id", Handler: h.LocationSave},
		// Not /holdings/bulk: POST /holdings/:id is the holding form's.
		{Method: "POST", Path: "/holdings/bulk/apply", Handler: h.BulkApply},
	})
}

func kindOptions() []pages.Option {
	out := make([]pages.Option, len(custody.Kinds))
	for i, k := range custody.Kinds {
		out[i] = pages.Option{Value: k, Label: custody.KindNames[k]}
	}
	return out
}

// locationsView lists the member's locations around the given form.
func (h *Handlers) locationsView(c *fiber.Ctx, u account.User, form pages.LocationFormView) (pages.LocationsView, error) {
	ls, err := h.custody.Locations(h.Ctx(c), u)
	if err != nil {
		return pages.LocationsView{}, err
	}
	v := pages.LocationsView{Form: form, Kinds: kindOptions()}
	for _, l := range ls {
		r := pages.LocationRow{ID: l.ID, Name: l.Name, Kind: custody.KindNames[l.Kind], Notes: l.Notes, Lots: format.Count(l.Lots, "lot", "lots"),
			CanDelete: l.Lots == 0, TaxAdvantaged: custody.TaxAdvantaged(l.Kind)}
		if d, ok := custody.InsuredValue(l); ok {
			r.Insured = format.USD(d)
		}
		v.Rows = append(v.Rows, r)
	}
	return v, nil
}

func emptyForm() pages.LocationFormView {
	return pages.LocationFormView{Values: map[string]string{"kind": "home"}, Errors: map[string]string{}}
}

// LocationsPage lists the member's locations with the add form.
func (h *Handlers) LocationsPage(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	v, err := h.locationsView(c, u, emptyForm())
	if err != nil {
		return err
	}
	v.Flash = cmp.Or(kit.Flash(c, "saved", "Location saved."), kit.Flash(c, "deleted", "Location deleted."))
	return kit.Render(c, http.StatusOK, pages.Locations(h.Meta(c, "Storage locations", "holdings"), v))
}

// LocationEdit shows the list with the edit form filled.
func (h *Handlers) LocationEdit(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	l, err := h.custody.Location(h.Ctx(c), u, c.Params("id"))
	if err != nil {
		return err
	}
	form := pages.LocationFormView{ID: l.ID, Values: map[string]string{"name": l.Name, "kind": l.Kind, "insured_value": l.InsuredValue.String, "notes": l.Notes},
		Errors: map[string]string{}}
	v, err := h.locationsView(c, u, form)
	if err != nil {
		return err
	}
	return kit.Render(c, http.StatusOK, pages.Locations(h.Meta(c, "Edit location", "holdings"), v))
}

// LocationSave handles the add and edit forms; bad input re-renders with 422.
func (h *Handlers) LocationSave(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	vals := map[string]string{}
	var in custody.LocationInput
	for _, f := range []struct {
		name string
		dst  **string
	}{{"name", &in.Name}, {"kind", &in.Kind}, {"insured_value", &in.InsuredValue}, {"notes", &in.Notes}} {
		s := strings.Clone(c.FormValue(f.name))
		vals[f.name] = s
		*f.dst = &s
	}
	id := strings.Clone(c.Params("id"))
	var err error
	if id == "" {
		_, err = h.custody.CreateLocation(h.Ctx(c), u, in)
	} else {
		_, err = h.custody.UpdateLocation(h.Ctx(c), u, id, in)
	}
	if err != nil {
		if apperr.KindOf(err) != apperr.Invalid {
			return err
		}
		form := pages.LocationFormView{ID: id, Values: vals, Errors: kit.FieldSentences(apperr.FieldsOf(err))}
		v, verr := h.locationsView(c, u, form)
		if verr != nil {
			return verr
		}
		return kit.Render(c, http.StatusUnprocessableEntity, pages.Locations(h.Meta(c, "Storage locations", "holdings"), v))
	}
	return kit.Redirect(c, "/locations?saved=1")
}

// LocationDelete deletes an empty location.
func (h *Handlers) LocationDelete(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	if err := h.custody.DeleteLocation(h.Ctx(c), u, c.Params("id")); err != nil {
		return err
	}
	return kit.Redirect(c, "/locations?deleted=1")
}

// bulkBackKeys are the ledger table's query parameters a bulk form may come back to.
var bulkBackKeys = []string{"view", "q", "metal", "form", "location_id", "tag", "from", "to", "sort", "dir", "page", "per_page"}

// bulkBack is the ledger table the bulk form came from, its query kept to the known keys.
func bulkBack(raw string) url.Values {
	in, _ := url.ParseQuery(raw)
	out := url.Values{"view": {"table"}}
	for _, k := range bulkBackKeys[1:] {
		if v := in.Get(k); v != "" && len(v) <= 200 {
			out.Set(k, v)
		}
	}
	return out
}

// BulkApply handles the ledger table's bulk form: the checked lots (ids) moved or tagged in
// one go, as POST /v1/holdings/bulk does, then back to the table saying what was done. A
// refusal changes nothing and says why, with the status of the API's answer.
func (h *Handlers) BulkApply(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	in := custody.BulkInput{Action: strings.Clone(c.FormValue("action")), Date: strings.Clone(c.FormValue("date")),
		Note: strings.Clone(c.FormValue("note")), Tag: strings.Clone(c.FormValue("tag"))}
	for _, b := range c.Request().PostArgs().PeekMulti("ids") {
		in.IDs = append(in.IDs, string(b))
	}
	if in.Action == custody.BulkMove {
		to := strings.Clone(c.FormValue("to_location_id"))
		in.ToLocationID, in.HasTo = &to, true
	}
	back := bulkBack(c.FormValue("back"))
	n, err := h.custody.Bulk(h.Ctx(c), u, in)
	if err != nil {
		k := apperr.KindOf(err)
		if k != apperr.Invalid && k != apperr.NotFound {
			return err
		}
		e, _ := apperr.As(err)
		why := e.Msg
		if fs := apperr.FieldsOf(err); len(fs) > 0 {
			why = kit.FieldSentence(fs[0].Field, fs[0].Message)
		}
		status := http.StatusUnprocessableEntity
		if k == apperr.NotFound {
			status = http.StatusNotFound
		}
		return kit.Render(c, status, pages.BulkRefused(h.Meta(c, "Nothing was changed", "holdings"), why, templ.SafeURL("/holdings?"+back.Encode())))
	}
	back.Set("bulk", strconv.Itoa(n))
	back.Set("bulk_action", in.Action)
	return kit.Redirect(c, "/holdings?"+back.Encode())
}
