package web

import (
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ouncehq/ounce/db"
)

// latencyBuckets are the histogram upper bounds in seconds.
var latencyBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5}

// metrics collects request counts and latencies per route and status, the database pool's
// state, and the Go runtime and process collectors, on a registry of its own: nothing is
// registered globally, so two servers in one process (tests) never collide.
type metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	handler  fiber.Handler
}

func newMetrics(s *db.Store) *metrics {
	labels := []string{"method", "route", "status"}
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ounce_http_requests_total", Help: "HTTP requests by route and status.",
		}, labels),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "ounce_http_request_duration_seconds", Help: "Request latency by route and status.", Buckets: latencyBuckets,
		}, labels),
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(m.requests, m.latency, poolCollector{store: s},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.handler = adaptor.HTTPHandler(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return m
}

func (m *metrics) observe(method, route string, status int, d time.Duration) {
	code := strconv.Itoa(status)
	m.requests.WithLabelValues(method, route, code).Inc()
	m.latency.WithLabelValues(method, route, code).Observe(d.Seconds())
}

// poolCollector reads the database pool's statistics at scrape time.
type poolCollector struct{ store *db.Store }

var (
	poolConnections = prometheus.NewDesc("ounce_db_connections", "Database pool connections by state.", []string{"state"}, nil)
	poolMax         = prometheus.NewDesc("ounce_db_connections_max", "Configured pool limit.", nil, nil)
	poolWaits       = prometheus.NewDesc("ounce_db_wait_total", "Connections waited for.", nil, nil)
	poolWaitSeconds = prometheus.NewDesc("ounce_db_wait_seconds_total", "Time spent waiting for a connection.", nil, nil)
)

// Describe implements prometheus.Collector.
func (poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolConnections, poolMax, poolWaits, poolWaitSeconds} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c poolCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.store.Stats()
	ch <- prometheus.MustNewConstMetric(poolConnections, prometheus.GaugeValue, float64(st.OpenConnections), "open")
	ch <- prometheus.MustNewConstMetric(poolConnections, prometheus.GaugeValue, float64(st.InUse), "in_use")
	ch <- prometheus.MustNewConstMetric(poolConnections, prometheus.GaugeValue, float64(st.Idle), "idle")
	ch <- prometheus.MustNewConstMetric(poolMax, prometheus.GaugeValue, float64(st.MaxOpenConnections))
	ch <- prometheus.MustNewConstMetric(poolWaits, prometheus.CounterValue, float64(st.WaitCount))
	ch <- prometheus.MustNewConstMetric(poolWaitSeconds, prometheus.CounterValue, st.WaitDuration.Seconds())
}
