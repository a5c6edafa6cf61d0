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
	ref := func(name string) kit.Schema { return kit.Schema{"$ref": "#/components/schemas/" + name} }
	id := kit.Param{Name: "id", In: "path", Required: true, Description: "The alert's id, as returned when it was created.", Schema: kit.Schema{"type": "integer", "minimum": 1}, Example: "12"}
	notFound := kit.Response{Status: 404, Description: "No such alert of yours."}
	invalid := kit.Response{Status: 400, Description: "A field is invalid; the problem names it."}
	tooLarge := kit.Response{Status: 413, Description: "Body over 16 KiB."}
	subscription := kit.Schema{"type": "object", "required": []string{"endpoint", "keys"}, "properties": kit.Schema{
		"endpoint": kit.Schema{"type": "string", "format": "uri", "maxLength": 2048, "description": "The push service URL; must be https."},
		"keys": kit.Schema{"type": "object", "required": []string{"p256dh", "auth"}, "properties": kit.Schema{
			"p256dh": kit.Schema{"type": "string", "description": "The browser's P-256 public key, 65 bytes, base64url."},
			"auth":   kit.Schema{"type": "string", "description": "The 16-byte auth secret, base64url."},
		}},
	}, "description": "A browser's PushSubscription as JSON (PushSubscription.toJSON())."}
	expoToken := kit.Schema{"type": "string", "pattern": `^(ExponentPushToken|ExpoPushToken)\[[A-Za-z0-9_-]{10,200}\]$`, "description": "An Expo push token."}
	alertBody := func(create bool) kit.Schema {
		props := kit.Schema{
			"metal":        kit.MetalSchema(),
			"direction":    kit.Schema{"type": "string", "enum": []string{"above", "below"}, "description": "above: fires when the price rises to or through the target; below: when it falls to or through it."},
			"target_price": kit.Schema{"oneOf": []kit.Schema{{"type": "number", "format": "double"}, {"type": "string"}}, "description": "USD per troy ounce, more than 0 and at most 10000000, at most 4 decimal places; a string keeps it exact."},
			"repeat":       kit.Schema{"type": "string", "enum": []string{"once", "rearm"}, "default": "once", "description": "once: the alert disables itself after firing; rearm: it fires again on the next crossing after the price has moved back by 0.5 %."},
			"enabled":      kit.Schema{"type": "boolean", "description": "false pauses the alert; true (again) waits for the next crossing."},
		}
		s := kit.Schema{"type": "object", "additionalProperties": false, "properties": props}
		if create {
			s["required"] = []string{"metal", "direction", "target_price"}
		} else {
			delete(props, "metal")
		}
		return s
	}
	alertObj := kit.Schema{"type": "object", "required": []string{"alert"}, "properties": kit.Schema{"alert": ref("PriceAlert")}}
	return []kit.APIRoute{
		{Method: "POST", Path: "/v1/push/register", Auth: kit.AuthMember, Handler: h.APIPushRegister, OperationID: "registerPushDevice", Tag: "Push", MaxBody: maxPushBody,
			Summary:     "Register a device for push notifications",
			Description: "ios and android take an Expo push token; web takes the browser's Web Push subscription (https endpoint, p256dh and auth keys). Registering a token again moves it to you. At most " + strconv.Itoa(alerts.MaxDevices) + " devices per member.",
			Body: kit.Schema{"type": "object", "additionalProperties": false, "required": []string{"token", "platform"}, "properties": kit.Schema{
				"platform": kit.Schema{"type": "string", "enum": []string{"ios", "android", "web"}},
				"token":    kit.Schema{"oneOf": []kit.Schema{expoToken, subscription}, "description": "The Expo push token (ios, android), or the Web Push subscription (web; also accepted as a JSON string)."},
			}},
			Responses: []kit.Response{
				{Status: 201, Description: "Registered.", Schema: kit.Schema{"type": "object", "required": []string{"id", "platform", "created_at"}, "properties": kit.Schema{
					"id": kit.Schema{"type": "integer"}, "platform": kit.Schema{"type": "string", "enum": []string{"ios", "android", "web"}}, "created_at": kit.Schema{"type": "string", "format": "date-time"},
				}}},
				{Status: 409, Description: "You already have " + strconv.Itoa(alerts.MaxDevices) + " devices."},
				invalid, tooLarge,
			},
			Example: `POST /v1/push/register {"platform":"ios","token":"ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]"}`},
		{Method: "DELETE", Path: "/v1/push/delete", Auth: kit.AuthMember, Handler: h.APIPushDelete, OperationID: "deletePushDevice", Tag: "Push", MaxBody: maxPushBody,
			Summary:     "Remove one of your push devices",
			Description: "token is the Expo push token, or the Web Push subscription (or its endpoint) you registered.",
			Body: kit.Schema{"type": "object", "additionalProperties": false, "required": []string{"token"}, "properties": kit.Schema{
				"token":    kit.Schema{"oneOf": []kit.Schema{{"type": "string"}, subscription}},
				"platform": kit.Schema{"type": "string", "description": "Ignored; accepted for symmetry with register."},
			}},
			Responses: []kit.Response{{Status: 204, Description: "Removed."}, {Status: 404, Description: "No device of yours has that token."}, invalid, tooLarge},
			Example:   `DELETE /v1/push/delete {"token":"ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]"}`},
		{Method: "POST", Path: "/v1/push/price-alerts", Auth: kit.AuthMember, Handler: h.APIAlertCreate, OperationID: "createPriceAlert", Tag: "Push", MaxBody: maxPushBody,
			Summary: "Create a price alert",
			Description: "You are told once each time the price crosses the target in the alert's direction (between two accepted live prices; prices the spike guard holds never fire). " +
				"An alert created while its condition already holds waits for a crossing. Price alerts are a Gold feature: Gold members may hold " + strconv.Itoa(alerts.MaxAlerts) + ", free members " + strconv.Itoa(alerts.MaxFreeAlert) + ".",
			Body: alertBody(true),
			Responses: []kit.Response{
				{Status: 201, Description: "Created; Location names it.", Schema: alertObj},
				{Status: 403, Description: "A free member already holds one alert: more need Gold membership."},
				{Status: 409, Description: "You already hold " + strconv.Itoa(alerts.MaxAlerts) + " alerts."},
				invalid, tooLarge,
			},
			Example: `POST /v1/push/price-alerts {"metal":"silver","direction":"above","target_price":"40","repeat":"once"}`},
		{Method: "GET", Path: "/v1/push/price-alerts", Auth: kit.AuthMember, Handler: h.APIAlertList, OperationID: "listPriceAlerts", Tag: "Push",
			Summary: "Your price alerts, oldest first",
			Responses: []kit.Response{{Status: 200, Description: "Your alerts.", Schema: kit.Schema{"type": "object", "required": []string{"alerts"}, "properties": kit.Schema{
				"alerts": kit.Schema{"type": "array", "items": ref("PriceAlert")},
			}}}},
			Example: "GET /v1/push/price-alerts"},
		{Method: "PATCH", Path: "/v1/push/price-alerts/:id", Auth: kit.AuthMember, Handler: h.APIAlertUpdate, OperationID: "updatePriceAlert", Tag: "Push", MaxBody: maxPushBody,
			Summary:     "Change, pause or resume one of your alerts",
			Description: "A new target or direction, or enabling a paused alert, waits for the next crossing from the current price.",
			Params:      []kit.Param{id}, Body: alertBody(false),
			Responses: []kit.Response{{Status: 200, Description: "The alert after the change.", Schema: alertObj}, notFound, invalid, tooLarge},
			Example:   `PATCH /v1/push/price-alerts/12 {"enabled":false}`},
		{Method: "DELETE", Path: "/v1/push/price-alerts/:id", Auth: kit.AuthMember, Handler: h.APIAlertDelete, OperationID: "deletePriceAlert", Tag: "Push",
			Summary:   "Delete one of your alerts",
			Params:    []kit.Param{id},
			Responses: []kit.Response{{Status: 204, Description: "Deleted; its past firings stay in your notifications."}, notFound},
			Example:   "DELETE /v1/push/price-alerts/12"},
		{Method: "GET", Path: "/v1/push/notifications", Auth: kit.AuthMember, Handler: h.APINotifications, OperationID: "listNotifications", Tag: "Push",
			Summary: "Your notification centre: alert firings, newest first",
			Params:  []kit.Param{{Name: "limit", In: "query", Description: "How many.", Schema: kit.Schema{"type": "integer", "minimum": 1, "maximum": alerts.MaxNotifications, "default": 50}}},
			Responses: []kit.Response{{Status: 200, Description: "Recent notifications and how many are unread.", Schema: kit.Schema{"type": "object", "required": []string{"notifications", "unread"}, "properties": kit.Schema{
				"notifications": kit.Schema{"type": "array", "items": ref("AlertNotification")}, "unread": kit.Schema{"type": "integer", "minimum": 0},
			}}}},
			Example: "GET /v1/push/notifications?limit=20"},
		{Method: "GET", Path: "/v1/push/vapid-public-key", Auth: kit.AuthNone, Handler: h.APIVAPIDKey, OperationID: "getVapidPublicKey", Tag: "Push",
			Summary:     "The Web Push application server key",
			Description: "Pass it as applicationServerKey to pushManager.subscribe, then register the subscription with platform web.",
			Responses:   []kit.Response{{Status: 200, Description: "The VAPID public key, base64url.", Schema: kit.Schema{"type": "object", "required": []string{"public_key"}, "properties": kit.Schema{"public_key": kit.Schema{"type": "string"}}}}},
			Example:     "GET /v1/push/vapid-public-key"},
	}
}

// Schemas are the named schemas of the push routes.
func (h *Handlers) Schemas() map[string]kit.Schema {
	dt := kit.Schema{"type": "string", "format": "date-time"}
	return map[string]kit.Schema{
		"PriceAlert": kit.Schema{"type": "object", "required": []string{"id", "metal", "direction", "target_price", "repeat", "enabled", "last_triggered_at", "created_at"}, "properties": kit.Schema{
			"id":                kit.Schema{"type": "integer"},
			"metal":             kit.MetalSchema(),
			"direction":         kit.Schema{"type": "string", "enum": []string{"above", "below"}},
			"target_price":      kit.Schema{"type": "number", "format": "double", "description": "USD per troy ounce."},
			"repeat":            kit.Schema{"type": "string", "enum": []string{"once", "rearm"}},
			"enabled":           kit.Schema{"type": "boolean", "description": "false when paused, or after a once-alert fired."},
			"armed":             kit.Schema{"type": "boolean", "description": "Whether the next crossing fires it (false while it waits for the price to move back)."},
			"last_triggered_at": kit.Schema{"type": "string", "format": "date-time", "nullable": true},
			"created_at":        dt,
		}},
		"AlertNotification": kit.Schema{"type": "object", "required": []string{"id", "metal", "direction", "target_price", "price", "price_as_of", "fired_at", "title", "body", "read"}, "properties": kit.Schema{
			"id":           kit.Schema{"type": "integer"},
			"alert_id":     kit.Schema{"type": "integer", "description": "0 once the alert is deleted."},
			"metal":        kit.MetalSchema(),
			"direction":    kit.Schema{"type": "string", "enum": []string{"above", "below"}},
			"target_price": kit.Schema{"type": "number", "format": "double"},
			"price":        kit.Schema{"type": "number", "format": "double", "description": "The live price that crossed the target, USD per troy ounce at its source's precision (2 to 4 decimals)."},
			"price_as_of":  dt,
			"fired_at":     dt,
			"title":        kit.Schema{"type": "string"},
			"body":         kit.Schema{"type": "string"},
			"read":         kit.Schema{"type": "boolean"},
		}},
	}
}
