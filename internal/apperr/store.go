package apperr

import "github.com/ouncehq/ounce/db"

// The store's two outcomes every layer may test for with errors.Is. db defines them (it maps
// the drivers' errors to them); the adapters' one error mapping names them here, so it need
// not import db.
var (
	StoreNotFound = db.ErrNotFound
	StoreConflict = db.ErrConflict
)
