package web

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/db"
)

// latencyBuckets are the histogram upper bounds in seconds.
var latencyBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5}

type seriesKey struct {
	method, route string
	status        int
}

type histogram struct {
	counts []uint64
	sum    float64
	total  uint64
}

// metrics collects request counts and latencies per route and status, in Prometheus text form.
type metrics struct {
	mu     sync.Mutex
	series map[seriesKey]*histogram
	store  *db.Store
}

func newMetrics(s *db.Store) *metrics { return &metrics{series: map[seriesKey]*histogram{}, store: s} }

func (m *metrics) observe(method, route string, status int, d time.Duration) {
	k := seriesKey{method, route, status}
	m.mu.Lock()
	h := m.series[k]
	if h == nil {
		h = &histogram{counts: make([]uint64, len(latencyBuckets))}
		m.series[k] = h
	}
	sec := d.Seconds()
	for i, b := range latencyBuckets {
		if sec <= b {
			h.counts[i]++
		}
	}
	h.sum += sec
	h.total++
	m.mu.Unlock()
}

func (m *metrics) handler(c *fiber.Ctx) error {
	var b strings.Builder
	m.mu.Lock()
	keys := make([]seriesKey, 0, len(m.series))
	for k := range m.series {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].route != keys[j].route {
			return keys[i].route < keys[j].route
		}
		if keys[i].method != keys[j].method {
			return keys[i].method < keys[j].method
		}
		return keys[i].status < keys[j].status
	})
	b.WriteString("# HELP ounce_http_requests_total HTTP requests by route and status.\n# TYPE ounce_http_requests_total counter\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "ounce_http_requests_total{method=%q,route=%q,status=\"%d\"} %d\n", k.method, k.route, k.status, m.series[k].total)
	}
	b.WriteString("# HELP ounce_http_request_duration_seconds Request latency by route and status.\n# TYPE ounce_http_request_duration_seconds histogram\n")
	for _, k := range keys {
		h := m.series[k]
		labels := fmt.Sprintf("method=%q,route=%q,status=\"%d\"", k.method, k.route, k.status)
		for i, ub := range latencyBuckets {
			fmt.Fprintf(&b, "ounce_http_request_duration_seconds_bucket{%s,le=\"%g\"} %d\n", labels, ub, h.counts[i])
		}
		fmt.Fprintf(&b, "ounce_http_request_duration_seconds_bucket{%s,le=\"+Inf\"} %d\n", labels, h.total)
		fmt.Fprintf(&b, "ounce_http_request_duration_seconds_sum{%s} %g\n", labels, h.sum)
		fmt.Fprintf(&b, "ounce_http_request_duration_seconds_count{%s} %d\n", labels, h.total)
	}
	m.mu.Unlock()
	st := m.store.DB.Stats()
	fmt.Fprintf(&b, "# HELP ounce_db_connections Database pool connections by state.\n# TYPE ounce_db_connections gauge\n")
	fmt.Fprintf(&b, "ounce_db_connections{state=\"open\"} %d\nounce_db_connections{state=\"in_use\"} %d\nounce_db_connections{state=\"idle\"} %d\n", st.OpenConnections, st.InUse, st.Idle)
	fmt.Fprintf(&b, "# HELP ounce_db_connections_max Configured pool limit.\n# TYPE ounce_db_connections_max gauge\nounce_db_connections_max %d\n", st.MaxOpenConnections)
	fmt.Fprintf(&b, "# HELP ounce_db_wait_total Connections waited for.\n# TYPE ounce_db_wait_total counter\nounce_db_wait_total %d\n", st.WaitCount)
	fmt.Fprintf(&b, "# HELP ounce_db_wait_seconds_total Time spent waiting for a connection.\n# TYPE ounce_db_wait_seconds_total counter\nounce_db_wait_seconds_total %g\n", st.WaitDuration.Seconds())
	c.Set(fiber.HeaderContentType, "text/plain; version=0.0.4; charset=utf-8")
	return c.SendString(b.String())
}
