package account

import (
	"context"
	"time"

	"github.com/ouncehq/ounce/db"
)

// Store is what the account service uses of the storage: its reach, declared where it is used.
// *db.Store satisfies it (the composition root passes that).
type Store interface {
	APIKeysByUser(ctx context.Context, userID int64) ([]db.APIKey, error)
	ActiveAPIKeyByHash(ctx context.Context, hash string) (db.KeyOwner, error)
	ClearSignInFailures(ctx context.Context, buckets ...string) error
	DeleteUser(ctx context.Context, id int64) error
	InsertAPIKey(ctx context.Context, userID int64, name, prefix, hash string) (db.APIKey, error)
	InsertUser(ctx context.Context, email, passwordHash, tier string, admin bool) (db.User, error)
	PruneSignInFailures(ctx context.Context, before time.Time) error
	RecordSignInFailure(ctx context.Context, bucket string, now time.Time, resetAfter time.Duration) error
	RevokeAPIKey(ctx context.Context, userID, keyID int64) error
	SetTierByAdmin(ctx context.Context, email, tier, cause string) (*db.MembershipChange, error)
	SetUserEmail(ctx context.Context, id int64, email string, notices ...db.OutMail) error
	SetUserPassword(ctx context.Context, id int64, passwordHash string, notices ...db.OutMail) (int64, error)
	SetUserAdmin(ctx context.Context, email string, admin bool) (User, error)
	SetUserUnits(ctx context.Context, id int64, displayCurrency, weightUnit, timeZone string) error
	SetUserTaxSettings(ctx context.Context, id int64, lotMethod, jurisdiction string) error
	SetUserProfile(ctx context.Context, id int64, displayName, timeZone string) error
	SignInFailures(ctx context.Context, bucket string) (db.SignInFailure, error)
	UserByEmail(ctx context.Context, email string) (db.User, error)
	UserByID(ctx context.Context, id int64) (db.User, error)
}

var _ Store = (*db.Store)(nil)
