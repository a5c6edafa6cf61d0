package portfolio

import "github.com/ouncehq/ounce/db"

// Date is a calendar day without a time zone (purchase and sale dates); db defines it because
// it stores it, and the adapters name it here.
type Date = db.Date
