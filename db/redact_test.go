package db

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		`parse "postgres://ann:s3cret@db.example:5432/ounce": invalid port`: `parse "postgres://ann:xxxxx@db.example:5432/ounce": invalid port`,
		`postgresql://ann:p@ss:w0rd@host/db?sslmode=disable`:                `postgresql://ann:xxxxx@host/db?sslmode=disable`,
		`host=db user=ann password=s3cret dbname=ounce`:                     `host=db user=ann password=xxxxx dbname=ounce`,
		`postgres://db/ounce?user=ann&password=s3cret&sslmode=require`:      `postgres://db/ounce?user=ann&password=xxxxx&sslmode=require`,
		`postgres://ann@db/ounce`:                                           `postgres://ann@db/ounce`,
		`nothing secret here`:                                               `nothing secret here`,
		`dial tcp 127.0.0.1:5432: connect: connection refused`:              `dial tcp 127.0.0.1:5432: connect: connection refused`,
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestOpenNeverShowsThePassword: a malformed URL comes back from the driver whole; the error
// Open returns must not carry its password, on any of the ways a URL can be wrong.
func TestOpenNeverShowsThePassword(t *testing.T) {
	for _, u := range []string{
		"postgres://ann:s3cret-pw@127.0.0.1:notaport/ounce",
		"postgres://ann:s3cret-pw@127.0.0.1:5432/ounce?sslmode=%zz",
		"postgres://ann:s3cret-pw@127.0.0.1:1/ounce?sslmode=disable&connect_timeout=1",
		"postgres://ann:s3cret-pw@[::1/ounce",
	} {
		_, err := Open(context.Background(), u, "")
		if err == nil {
			t.Fatalf("%s opened", u)
		}
		if strings.Contains(err.Error(), "s3cret-pw") {
			t.Errorf("error shows the password: %v", err)
		}
		if errors.Unwrap(err) == nil {
			t.Errorf("redaction lost the error chain: %v", err)
		}
	}
}
