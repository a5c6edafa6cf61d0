package prices

import (
	"math"
	"slices"
)

// LTTB downsamples points (ascending by date) to at most max points with
// Largest-Triangle-Three-Buckets, which keeps the visual shape of a chart far
// better than taking every n-th point. The first and last points are always
// kept, and so are the series' highest and lowest prices: a chart that drops
// the all-time high is wrong, not merely coarse.
//
// Geometry is done in float64 (it only chooses points); the returned points are
// the original closes with their exact decimal prices. With len(points) ≤ max
// it returns a copy; max < 1 yields an empty result.
func LTTB(points []Close, max int) []Close {
	if out, ok := fewCloses(points, max); ok {
		return out
	}
	n := len(points)
	if max == 2 {
		return []Close{points[0], points[n-1]}
	}

	xs := make([]float64, n)
	ys := make([]float64, n)
	for i, p := range points {
		xs[i] = float64(p.Date.Unix())
		ys[i] = p.Price.InexactFloat64()
	}

	// Points 1..n-2 are split into max-2 buckets of (nearly) equal size; integer
	// arithmetic keeps the boundaries exact.
	buckets := max - 2
	bucketStart := func(b int) int { return b*(n-2)/buckets + 1 }

	chosen := make([]int, 0, max)
	chosen = append(chosen, 0)
	a := 0
	for b := 0; b < buckets; b++ {
		lo, hi := bucketStart(b), bucketStart(b+1)
		// The third corner is the average of the next bucket (or the last point).
		nlo, nhi := hi, bucketStart(b+2)
		if b == buckets-1 {
			nlo, nhi = n-1, n
		}
		var cx, cy float64
		for j := nlo; j < nhi; j++ {
			cx += xs[j]
			cy += ys[j]
		}
		cnt := float64(nhi - nlo)
		cx, cy = cx/cnt, cy/cnt

		best, bestArea := lo, -1.0
		for j := lo; j < hi; j++ {
			area := math.Abs((xs[a]-cx)*(ys[j]-ys[a]) - (xs[a]-xs[j])*(cy-ys[a]))
			if area > bestArea {
				best, bestArea = j, area
			}
		}
		chosen = append(chosen, best)
		a = best
	}
	chosen = append(chosen, n-1)

	// Make sure the extremes survive: put each one in place of its bucket's pick.
	loIdx, hiIdx := extremes(points)
	bucketOf := func(i int) int {
		b := (i - 1) * buckets / (n - 2)
		for b > 0 && bucketStart(b) > i {
			b--
		}
		for b < buckets-1 && bucketStart(b+1) <= i {
			b++
		}
		return b
	}
	for _, idx := range []int{hiIdx, loIdx} {
		if idx == 0 || idx == n-1 || slices.Contains(chosen, idx) {
			continue
		}
		other := hiIdx + loIdx - idx
		slot := bucketOf(idx) + 1 // chosen[0] is the first point
		if chosen[slot] == other {
			// Both extremes fell in one bucket: give this one the slot of a
			// neighbouring bucket (order is restored by the sort below).
			switch {
			case slot+1 < len(chosen)-1:
				slot++
			case slot-1 > 0:
				slot--
			default:
				continue // a single bucket cannot hold both
			}
		}
		chosen[slot] = idx
	}
	slices.Sort(chosen)
	return closesAt(points, slices.Compact(chosen))
}
