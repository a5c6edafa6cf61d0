package intel

import "github.com/ouncehq/ounce/db"

// The intelligence domain types as stored (defined by db, which maps their rows; named here
// so the adapters need not import db).
type (
	// Published is a stored Stack Signal article (Article is one ready to store).
	Published = db.Article
	// NewsItem is one stored market-news item with its analysis.
	NewsItem = db.NewsItem
	// FeedHealth is the last poll of one news feed.
	FeedHealth = db.FeedHealth
)
