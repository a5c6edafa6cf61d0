package news

import (
	"testing"
	"time"
)

// TestDemoItemsCarryTheirCreationTime is issue 10, case 7: demo items were dated hours or
// days before they were made, as if they had reached a feed then.
func TestDemoItemsCarryTheirCreationTime(t *testing.T) {
	now := time.Date(2026, 11, 23, 9, 30, 0, 0, time.UTC)
	items := DemoItems(now)
	if len(items) == 0 {
		t.Fatal("no demo items")
	}
	for _, it := range items {
		if !it.PublishedAt.Equal(now) || !it.Demo || it.Source != DemoSource {
			t.Errorf("%q: dated %v (created %v), demo %t", it.Title, it.PublishedAt, now, it.Demo)
		}
	}
}
