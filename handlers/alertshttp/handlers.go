// Package alertshttp adapts price alerts, push devices and the notification centre to HTTP: /v1 routes, the alerts page and its unread-count stream.
package alertshttp

import (
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/alerts"
	"github.com/ouncehq/ounce/internal/prices"
)

// Handlers are the area's adapters over its service, sharing the server's kit.Base.
type Handlers struct {
	*kit.Base
	// NoExtras answers nil for the Area methods this area has nothing for.
	kit.NoExtras
	alerts *alerts.Service
	market *prices.Service
}

// New builds the area's adapters.
func New(b *kit.Base, alerts *alerts.Service, market *prices.Service) *Handlers {
	return &Handlers{Base: b, alerts: alerts, market: market}
}
