package alertshttp

import (
	"strconv"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/ouncehq/ounce/internal/alerts"
)

// maxPushBody bounds a device or alert request body.
const maxPushBody = 16 << 10

// APIRoutes are the /v1 push device, price alert and notification routes.
func (h *Handlers) APIRoutes() []kit.APIRoute {
	if h.alerts == nil {
		return nil
	}
	id := kit.Param{Name: "id", In: "path", Required: true, Description: "The alert's id, as returned when it was created.", Schema: kit.Schema{"type": "integer", "minimum": 1}, Example: "12"}
	notFound := kit.NotYours("alert")
	invalid := kit.Response{Status: 400, Description: "A field is invalid; the problem names it."}
	tooLarge := kit.BodyTooLarge(maxPushBody)
	unknownQuote := kit.Response{Status: 422, Description: "An unknown currency or unit; the problem names the field and lists what is accepted."}
	return []kit.APIRoute{
		{Method: "POST", Path: "/v1/push/register", Auth: kit.AuthMember, Handler: h.APIPushRegister, OperationID: "registerPushDevice", Tag: "Push", MaxBody: maxPushBody,
			Summary:     "Register a device for push notifications",
			Description: "ios and android take an Expo push token; web takes the browser's Web Push subscription (https endpoint, p256dh and auth keys). Registering a token again moves it to you. At most " + strconv.Itoa(alerts.MaxDevices) + " devices per member.",
			Body:        pushSchema(DeviceBodyJSON{}),
			Responses: []kit.Response{
				{Status: 201, Description: "Registered.", Schema: pushSchema(DeviceJSON{})},
				{Status: 409, Description: "You already have " + strconv.Itoa(alerts.MaxDevices) + " devices."},
				invalid, tooLarge,
			},
			Example: `POST /v1/push/register {"platform":"ios","token":"ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]"}`},
		{Method: "DELETE", Path: "/v1/push/delete", Auth: kit.AuthMember, Handler: h.APIPushDelete, OperationID: "deletePushDevice", Tag: "Push", MaxBody: maxPushBody,
			Summary:     "Remove one of your push devices",
			Description: "token is the Expo push token, or the Web Push subscription (or its endpoint) you registered.",
			Body:        pushSchema(DeviceDeleteBodyJSON{}),
			Responses:   []kit.Response{{Status: 204, Description: "Removed."}, {Status: 404, Description: "No device of yours has that token."}, invalid, tooLarge},
			Example:     `DELETE /v1/push/delete {"token":"ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]"}`},
		{Method: "POST", Path: "/v1/push/price-alerts", Auth: kit.AuthMember, Handler: h.APIAlertCreate, OperationID: "createPriceAlert", Tag: "Push", MaxBody: maxPushBody,
			Summary: "Create a price alert",
			Description: "You are told once each time the price crosses the target in the alert's direction (between two accepted live prices; prices the spike guard holds never fire). " +
				"An alert created while its condition already holds waits for a crossing. A target may be in any display currency and weight unit (\"gold above €3,800/oz\", \"silver below ₹95/g\"): " +
				"each live price is converted at the current exchange rate before the crossing is judged. Price alerts are a Gold feature: Gold members may hold " + strconv.Itoa(alerts.MaxAlerts) + ", free members " + strconv.Itoa(alerts.MaxFreeAlert) + ".",
			Body: pushSchema(AlertCreateBodyJSON{}),
			Responses: []kit.Response{
				{Status: 201, Description: "Created; Location names it.", Schema: pushSchema(AlertEnvelopeJSON{})},
				{Status: 403, Description: "A free member already holds one alert: more need Gold membership."},
				{Status: 409, Description: "You already hold " + strconv.Itoa(alerts.MaxAlerts) + " alerts."},
				invalid, unknownQuote, tooLarge,
			},
			Example: `POST /v1/push/price-alerts {"metal":"silver","direction":"above","target_price":"40","repeat":"once"}`},
		{Method: "GET", Path: "/v1/push/price-alerts", Auth: kit.AuthMember, Handler: h.APIAlertList, OperationID: "listPriceAlerts", Tag: "Push",
			Summary:   "Your price alerts, oldest first",
			Responses: []kit.Response{{Status: 200, Description: "Your alerts.", Schema: pushSchema(AlertsJSON{})}},
			Example:   "GET /v1/push/price-alerts"},
		{Method: "PATCH", Path: "/v1/push/price-alerts/:id", Auth: kit.AuthMember, Handler: h.APIAlertUpdate, OperationID: "updatePriceAlert", Tag: "Push", MaxBody: maxPushBody,
			Summary:     "Change, pause or resume one of your alerts",
			Description: "A new target, direction, currency or unit, or enabling a paused alert, waits for the next crossing from the current price.",
			Params:      []kit.Param{id}, Body: pushSchema(AlertPatchBodyJSON{}),
			Responses: []kit.Response{{Status: 200, Description: "The alert after the change.", Schema: pushSchema(AlertEnvelopeJSON{})}, notFound, invalid, unknownQuote, tooLarge},
			Example:   `PATCH /v1/push/price-alerts/12 {"enabled":false}`},
		{Method: "DELETE", Path: "/v1/push/price-alerts/:id", Auth: kit.AuthMember, Handler: h.APIAlertDelete, OperationID: "deletePriceAlert", Tag: "Push",
			Summary:   "Delete one of your alerts",
			Params:    []kit.Param{id},
			Responses: []kit.Response{{Status: 204, Description: "Deleted; its past firings stay in your notifications."}, notFound},
			Example:   "DELETE /v1/push/price-alerts/12"},
		{Method: "GET", Path: "/v1/push/notifications", Auth: kit.AuthMember, Handler: h.APINotifications, OperationID: "listNotifications", Tag: "Push",
			Summary:   "Your notification centre: alert firings, newest first",
			Params:    []kit.Param{{Name: "limit", In: "query", Description: "How many.", Schema: kit.Schema{"type": "integer", "minimum": 1, "maximum": alerts.MaxNotifications, "default": 50}}},
			Responses: []kit.Response{{Status: 200, Description: "Recent notifications and how many are unread.", Schema: pushSchema(NotificationsJSON{})}},
			Example:   "GET /v1/push/notifications?limit=20"},
		{Method: "GET", Path: "/v1/push/vapid-public-key", Auth: kit.AuthNone, Handler: h.APIVAPIDKey, OperationID: "getVapidPublicKey", Tag: "Push",
			Summary:     "The Web Push application server key",
			Description: "Pass it as applicationServerKey to pushManager.subscribe, then register the subscription with platform web.",
			Responses:   []kit.Response{{Status: 200, Description: "The VAPID public key, base64url.", Schema: pushSchema(VAPIDKeyJSON{})}},
			Example:     "GET /v1/push/vapid-public-key"},
	}
}

// pushSchema generates the schema of a push wire struct (objects open unless closed).
func pushSchema(v any) kit.Schema {
	subscription := kit.OpenSchemaOf(webSubscriptionJSON{})
	subscription["description"] = "A browser's PushSubscription as JSON (PushSubscription.toJSON())."
	expo := kit.Schema{"type": "string", "pattern": alerts.ExpoTokenPattern, "description": "An Expo push token."}
	return kit.OpenSchemaOf(v, kit.Consts{
		"MaxTarget":           alerts.MaxTarget,
		"MaxTargetOther":      int64(alerts.MaxTargetOther),
		"DeviceToken":         kit.OneOf("", expo, subscription),
		"TokenOrSubscription": kit.OneOf("", kit.Schema{"type": "string"}, subscription),
		"TargetPrice":         kit.OneOf("", kit.Schema{"type": "number", "format": "double"}, kit.Schema{"type": "string"}),
	})
}

// Schemas are the named schemas of the push routes.
func (h *Handlers) Schemas() map[string]kit.Schema {
	return map[string]kit.Schema{"PriceAlert": pushSchema(AlertJSON{}), "AlertNotification": pushSchema(NotificationJSON{})}
}
