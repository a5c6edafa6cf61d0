package accounthttp

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/views/pages"
)

// unitLabels are the weight units as the settings form offers them.
var unitLabels = [][2]string{{"oz", "Troy ounces (oz)"}, {"g", "Grams (g)"}, {"kg", "Kilograms (kg)"}, {"tola", "Tola (11.6638038 g)"}}

// unitsView is the "Money and units" section of u, with a rejected form's values and errors.
func unitsView(u account.User, vals, errs map[string]string) pages.UnitsView {
	s := account.SettingsOf(u)
	v := pages.UnitsView{Currency: s.DisplayCurrency, Unit: string(s.WeightUnit), Currencies: fx.DisplayCurrencies(), Units: unitLabels, Errors: map[string]string{}}
	if c, ok := vals["display_currency"]; ok {
		v.Currency = c
	}
	if w, ok := vals["weight_unit"]; ok {
		v.Unit = w
	}
	for k, x := range errs {
		v.Errors[k] = x
	}
	return v
}

// AccountUnits saves the display currency and weight unit from the settings page.
func (h *Handlers) AccountUnits(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	cur, unit := c.FormValue("display_currency"), c.FormValue("weight_unit")
	if _, err := h.account.UpdateSettings(h.Ctx(c), u, account.SettingsChange{DisplayCurrency: &cur, WeightUnit: &unit}); err != nil {
		errs, ok := accountFieldErrors(err, nil)
		if !ok {
			return err
		}
		v := h.accountView(u, nil, nil)
		v.Units = unitsView(u, map[string]string{"display_currency": cur, "weight_unit": unit}, errs)
		return kit.Render(c, http.StatusUnprocessableEntity, pages.Account(h.Meta(c, "Account", "settings"), v))
	}
	return kit.Redirect(c, "/settings/account?done=units")
}

// AccountTax saves the lot method and tax jurisdiction from the form on /tax and goes back
// there; a value not offered is a 422 naming the field.
func (h *Handlers) AccountTax(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	method, jur := strings.Clone(c.FormValue("lot_method")), strings.Clone(c.FormValue("tax_jurisdiction"))
	if _, err := h.account.UpdateSettings(h.Ctx(c), u, account.SettingsChange{LotMethod: &method, TaxJurisdiction: &jur}); err != nil {
		return err
	}
	return kit.Redirect(c, "/tax?settings=1")
}

// SettingsJSON is the body of GET|PATCH /v1/account/settings.
type SettingsJSON struct {
	_               struct{} `schema:"open"`
	DisplayCurrency string   `json:"display_currency" schema:"enum=currencies" doc:"ISO 4217 code money is shown in (default USD), converted at the ECB reference rate of each day."`
	WeightUnit      string   `json:"weight_unit" schema:"enum=units" doc:"Unit weights and prices per weight are shown in (default oz): troy ounce, gram, kilogram, tola (11.6638038 g; 1 troy oz = 31.1034768 g)."`
	TimeZone        string   `json:"time_zone" doc:"IANA time zone name (default America/New_York); daily briefs follow the member's day in it."`
	LotMethod       string   `json:"lot_method" schema:"optional,enum=lotMethods" doc:"How POST /v1/sales picks lots when the sale names no method (default fifo): fifo, lifo, hifo (highest cost per unit first), specific (lots named), average (one pool per product)."`
	TaxJurisdiction string   `json:"tax_jurisdiction" schema:"optional,enum=jurisdictions" doc:"Whose rules the gains report labels (default none): us, uk, de or none. Not tax advice."`
}

// SettingsPatchJSON is the body of PATCH /v1/account/settings: any of the settings, each
// checked by the account service (422 naming the field).
type SettingsPatchJSON struct {
	_               struct{} `schema:"allOptional"`
	DisplayCurrency string   `json:"display_currency"`
	WeightUnit      string   `json:"weight_unit"`
	TimeZone        string   `json:"time_zone"`
	LotMethod       string   `json:"lot_method"`
	TaxJurisdiction string   `json:"tax_jurisdiction"`
}

func settingsJSON(u account.User) SettingsJSON {
	s := account.SettingsOf(u)
	return SettingsJSON{DisplayCurrency: s.DisplayCurrency, WeightUnit: string(s.WeightUnit), TimeZone: s.TimeZone, LotMethod: s.LotMethod, TaxJurisdiction: s.TaxJurisdiction}
}

// APISettings answers GET /v1/account/settings.
func (h *Handlers) APISettings(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	return kit.WriteJSON(c, http.StatusOK, settingsJSON(u))
}

// APISettingsPatch answers PATCH /v1/account/settings: the fields sent change, each a string.
func (h *Handlers) APISettingsPatch(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	body, err := kit.JSONObjectBody(c.Body(), "display_currency", "weight_unit", "time_zone", "lot_method", "tax_jurisdiction")
	if err != nil {
		return err
	}
	if len(body) == 0 {
		return &apperr.Error{Kind: apperr.Unprocessable, Msg: "body: name at least one setting to change",
			Fields: []apperr.FieldError{{Field: "body", Message: "name at least one of display_currency, weight_unit, time_zone, lot_method, tax_jurisdiction"}}}
	}
	var ch account.SettingsChange
	for name, dst := range map[string]**string{"display_currency": &ch.DisplayCurrency, "weight_unit": &ch.WeightUnit, "time_zone": &ch.TimeZone, "lot_method": &ch.LotMethod, "tax_jurisdiction": &ch.TaxJurisdiction} {
		raw, ok := body[name]
		if !ok {
			continue
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return &apperr.Error{Kind: apperr.Unprocessable, Msg: name + ": must be a string", Fields: []apperr.FieldError{{Field: name, Message: "must be a string"}}}
		}
		*dst = &s
	}
	nu, err := h.account.UpdateSettings(h.Ctx(c), u, ch)
	if err != nil {
		return err
	}
	return kit.WriteJSON(c, http.StatusOK, settingsJSON(nu))
}

// SettingsAPIRoutes are the account area's /v1 routes: the member's settings.
func (h *Handlers) SettingsAPIRoutes() []kit.APIRoute {
	consts := kit.Consts{"currencies": fx.DisplayCurrencies(), "units": metals.UnitNames(), "lotMethods": account.LotMethods, "jurisdictions": account.TaxJurisdictions}
	schema, patch := kit.SchemaOf(SettingsJSON{}, consts), kit.SchemaOf(SettingsPatchJSON{})
	refused := kit.ProblemResponse(422, "An unknown currency, unit or time zone (or an empty body): errors names each field and what is accepted; nothing is changed.")
	return []kit.APIRoute{
		{Method: "GET", Path: "/v1/account/settings", Auth: kit.AuthMember, Handler: h.APISettings, OperationID: "getAccountSettings", Tag: "Account",
			Summary:   "Your display currency, weight unit and time zone",
			Responses: []kit.Response{{Status: 200, Description: "The settings.", Schema: schema}}, Example: "GET /v1/account/settings"},
		{Method: "PATCH", Path: "/v1/account/settings", Auth: kit.AuthMember, Handler: h.APISettingsPatch, OperationID: "updateAccountSettings", Tag: "Account",
			Summary: "Change your display currency, weight unit or time zone", Body: patch,
			Responses: []kit.Response{{Status: 200, Description: "The settings after the change.", Schema: schema}, refused},
			Example:   `PATCH /v1/account/settings {"display_currency":"EUR","weight_unit":"g"}`},
	}
}
