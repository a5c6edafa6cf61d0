package benchkit

import (
	"sort"
	"sync"
	"time"
)

// Measure runs f requests times (after a warm-up) from clients goroutines and returns the
// latency percentiles 50, 90, 99 and 100. pre, when set, runs before each request, untimed
// (with one client only).
func Measure(f, pre func(), clients, requests int) (map[int]time.Duration, []time.Duration) {
	for i := 0; i < 20; i++ {
		if pre != nil {
			pre()
		}
		f()
	}
	lat := make([]time.Duration, requests)
	var wg sync.WaitGroup
	var next int
	var mu sync.Mutex
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= requests {
					return
				}
				if pre != nil {
					pre()
				}
				t := time.Now()
				f()
				lat[i] = time.Since(t)
			}
		}()
	}
	wg.Wait()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	out := map[int]time.Duration{}
	for _, p := range []int{50, 90, 99, 100} {
		i := p*len(lat)/100 - 1
		if i < 0 {
			i = 0
		}
		out[p] = lat[i]
	}
	return out, lat
}
