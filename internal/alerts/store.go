package alerts

import (
	"context"
	"time"

	"github.com/ouncehq/ounce/db"
)

// Store is what the alerts service uses of the storage: its reach, declared where it is used.
// *db.Store satisfies it (the composition root passes that). The firing rule is this
// package's; EvaluateQuoteTicks states it in SQL for set-based ticks (see Evaluate).
type Store interface {
	Alert(ctx context.Context, userID, id int64) (db.PriceAlert, error)
	AlertQuotes(ctx context.Context) ([]db.AlertQuote, error)
	Alerts(ctx context.Context, userID int64) ([]db.PriceAlert, error)
	ClaimOutbox(ctx context.Context, now, lease int64, limit int) ([]db.OutboxItem, error)
	DeleteAlert(ctx context.Context, userID, id int64) error
	DeleteDevice(ctx context.Context, userID int64, token string) error
	Devices(ctx context.Context, userID int64) ([]db.PushDevice, error)
	EvaluateQuoteTicks(ctx context.Context, ticks []db.QuoteTick, asOf, now int64) ([]db.TickResult, error)
	FinishOutbox(ctx context.Context, u db.OutboxUpdate, now int64) error
	ImportAlerts(ctx context.Context, rows []db.PriceAlert) error
	InsertAlert(ctx context.Context, a db.PriceAlert, max int) (db.PriceAlert, error)
	MarkNotificationsRead(ctx context.Context, userID, now int64) error
	Notifications(ctx context.Context, userID int64, limit int) ([]db.AlertNotification, error)
	NotificationsSince(ctx context.Context, userID, since int64) ([]db.AlertNotification, error)
	Publish(ctx context.Context, channel, payload string) error
	RegisterDevice(ctx context.Context, d db.PushDevice, max int) (db.PushDevice, error)
	RemoveDevice(ctx context.Context, id int64) error
	RunAsLeader(ctx context.Context, key int64, retry time.Duration, lead func(ctx context.Context))
	Subscribe(ctx context.Context, channel string, onErr func(error)) (*db.Subscription, error)
	UnreadNotifications(ctx context.Context, userID int64) (int64, error)
	UpdateAlert(ctx context.Context, a db.PriceAlert) error
	VAPIDKeys(ctx context.Context, fresh func() (public, private string, err error)) (public, private string, err error)
}

var _ Store = (*db.Store)(nil)
