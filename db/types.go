package db

import (
	"database/sql/driver"
	"fmt"
	"time"
)

// Date is a calendar day without a time zone, stored as DATE (PostgreSQL) or
// 'YYYY-MM-DD' text (SQLite). The zero Date is stored as NULL.
type Date struct{ time.Time }

// DateLayout is the wire and storage form of a Date.
const DateLayout = "2006-01-02"

// NewDate truncates t to its calendar day in UTC.
func NewDate(t time.Time) Date {
	y, m, d := t.Date()
	return Date{time.Date(y, m, d, 0, 0, 0, 0, time.UTC)}
}

// ParseDate reads YYYY-MM-DD strictly.
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(DateLayout, s)
	if err != nil {
		return Date{}, err
	}
	return Date{t}, nil
}

// String renders YYYY-MM-DD, or "" for the zero Date.
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	return d.Format(DateLayout)
}

// Value implements driver.Valuer.
func (d Date) Value() (driver.Value, error) {
	if d.IsZero() {
		return nil, nil
	}
	return d.Format(DateLayout), nil
}

// Scan implements sql.Scanner for DATE columns and date text.
func (d *Date) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*d = Date{}
		return nil
	case time.Time:
		*d = NewDate(v)
		return nil
	case string:
		return d.scanText(v)
	case []byte:
		return d.scanText(string(v))
	}
	return fmt.Errorf("db.Date: cannot scan %T", src)
}

func (d *Date) scanText(s string) error {
	if len(s) >= 10 {
		s = s[:10]
	}
	p, err := ParseDate(s)
	if err != nil {
		return fmt.Errorf("db.Date: %w", err)
	}
	*d = p
	return nil
}
