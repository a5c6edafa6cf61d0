package advisor

import (
	"context"
	"time"

	"github.com/ouncehq/ounce/db"
)

// Store is what the advisor uses of the storage: its reach, declared where it is used. *db.Store
// satisfies it (the composition root passes that).
type Store interface {
	AdvisorUsed(ctx context.Context, userID int64, day db.Date) (int, error)
	AppendMessages(ctx context.Context, c db.Conversation, msgs []db.ChatMessage) (db.Conversation, error)
	BriefBefore(ctx context.Context, userID int64, day db.Date) (db.Brief, error)
	BriefByDay(ctx context.Context, userID int64, day db.Date) (db.Brief, error)
	BriefsByUser(ctx context.Context, userID int64, limit, offset int) ([]db.Brief, int, error)
	ConversationByID(ctx context.Context, userID int64, id string) (db.Conversation, error)
	ConversationsByUser(ctx context.Context, userID int64, limit, offset int) ([]db.Conversation, int, error)
	DeleteConversation(ctx context.Context, userID int64, id string) error
	GoldUsers(ctx context.Context) ([]db.User, error)
	MessagesOf(ctx context.Context, conversationID string) ([]db.ChatMessage, error)
	RunAsLeader(ctx context.Context, key int64, retry time.Duration, lead func(ctx context.Context))
	SaveBrief(ctx context.Context, b db.Brief, replace bool) (db.Brief, error)
	UseAdvisorQuota(ctx context.Context, userID int64, day db.Date, limit int) (bool, error)
}

var _ Store = (*db.Store)(nil)
