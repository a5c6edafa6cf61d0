package custodyhttp

import (
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/custody"
	"github.com/ouncehq/ounce/views/format"
	"github.com/ouncehq/ounce/views/pages"
)

func (h *Handlers) pageRoutes() []kit.PageRoute {
	return []kit.PageRoute{
		{Method: "GET", Path: "/locations", Handler: h.LocationsPage, Auth: kit.AuthGold},
		{Method: "POST", Path: "/locations", Handler: h.LocationSave, Auth: kit.AuthGold},
		{Method: "GET", Path: "/locations/statement", Handler: h.InventoryDownload, Auth: kit.AuthGold},
		{Method: "GET", Path: "/locations/:id/edit", Handler: h.LocationEdit, Auth: kit.AuthGold},
		{Method: "POST", Path: "/locations/:id/delete", Handler: h.LocationDelete, Auth: kit.AuthGold},
		{Method: "POST", Path: "/locations/:id", Handler: h.LocationSave, Auth: kit.AuthGold},
	}
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
	switch {
	case c.Query("saved") == "1":
		v.Flash = "Location saved."
	case c.Query("deleted") == "1":
		v.Flash = "Location deleted."
	}
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
		form := pages.LocationFormView{ID: id, Values: vals, Errors: map[string]string{}}
		for _, e := range apperr.FieldsOf(err) {
			form.Errors[e.Field] = kit.FieldSentence(e.Field, e.Message)
		}
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
