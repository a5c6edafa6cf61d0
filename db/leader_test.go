package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db/dbtest"
)

// TestLeaderPerSchema: advisory locks belong to the whole PostgreSQL database, so the leader of
// a job is the key within the store's schema. Two instances over one schema have one leader;
// an instance over another schema of the same database leads its own job meanwhile instead of
// waiting on the first's.
func TestLeaderPerSchema(t *testing.T) {
	base, ok := dbtest.PostgresURL(t)
	if !ok {
		t.Skip(dbtest.SkipNoPostgres)
	}
	const key = 7302999
	schemaA := dbtest.PostgresSchema(t, base)
	a1, a2 := dbtest.OpenPostgres(t, schemaA), dbtest.OpenPostgres(t, schemaA)
	other := dbtest.Postgres(t, base)

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	leading := make(chan string, 3)
	lead := func(name string) func(context.Context) {
		return func(ctx context.Context) { leading <- name; <-ctx.Done() }
	}
	done := make(chan struct{}, 3)
	go func() { a1.RunAsLeader(ctx, key, time.Hour, lead("a1")); done <- struct{}{} }()
	first := <-leading
	if first != "a1" {
		t.Fatalf("first leader %q, want a1", first)
	}
	// a2 shares a1's schema: its one attempt finds the lock taken and it does not lead.
	attempted := make(chan bool, 1)
	a2.LeaderAttempt = func(k int64, got bool) { attempted <- got }
	go func() { a2.RunAsLeader(ctx, key, time.Hour, lead("a2")); done <- struct{}{} }()
	if got := <-attempted; got {
		t.Fatal("a second instance over the same schema took the lock its leader holds")
	}
	// other is another schema of the same database: it leads the same key at once.
	go func() { other.RunAsLeader(ctx, key, time.Hour, lead("other")); done <- struct{}{} }()
	select {
	case name := <-leading:
		if name != "other" {
			t.Fatalf("%q leads, want the instance over the other schema", name)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("an instance over another schema waited on the first schema's leader")
	}
	cancel()
	for range 3 {
		<-done
	}
}
