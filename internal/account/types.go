package account

import "github.com/ouncehq/ounce/db"

// The account domain types. Their rows are read and written by db, which defines them; the
// adapters and the web layer name them here, so nothing above the services imports db.
type (
	// User is one account.
	User = db.User
	// KeyOwner is an API key and the member it belongs to.
	KeyOwner = db.KeyOwner
)

// TierGold is the paid membership tier.
const TierGold = db.TierGold
