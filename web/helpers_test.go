package web_test

import (
	"testing"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
)

func sqliteStore(t *testing.T) *db.Store { return dbtest.SQLite(t) }
