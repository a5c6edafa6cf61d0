package benchkit

import (
	"flag"
	"fmt"
	"os"
)

// MemberFlags defines the flags of a measurement of one member's stack on each engine:
// -holdings (the member's lots), -requests (per endpoint and client setting, requests by
// default) and -pg (the PostgreSQL URL, OUNCE_TEST_POSTGRES_URL by default; none: SQLite
// only).
func MemberFlags(requests int) (holdingsN, requestsN *int, pg *string) {
	holdingsN = flag.Int("holdings", 10_000, "holdings of the measured member")
	requestsN = flag.Int("requests", requests, "requests per endpoint and client setting")
	pg = flag.String("pg", os.Getenv("OUNCE_TEST_POSTGRES_URL"), "PostgreSQL URL (a throwaway schema is created and dropped)")
	return holdingsN, requestsN, pg
}

// Build is one of the two ounce binaries a side-by-side measurement compares.
type Build struct{ Name, Bin string }

// BuildFlags defines -before and -after, the ounce binaries built before and after change
// ("the fixes"). The function it returns, called after flag.Parse, gives the two builds in
// that order, or prints usage and exits with status 2 when either is missing.
func BuildFlags(change string) func(usage string) []Build {
	before := flag.String("before", "", "ounce binary built before "+change)
	after := flag.String("after", "", "ounce binary built after "+change)
	return func(usage string) []Build {
		if *before == "" || *after == "" {
			fmt.Fprintln(os.Stderr, "usage: "+usage)
			os.Exit(2)
		}
		return []Build{{"before", *before}, {"after", *after}}
	}
}
