package db

import "database/sql"

// oneRow is the outcome of a write to one row named by its key (and owner): the write's
// error, or ErrNotFound when it touched no row.
func oneRow(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}
