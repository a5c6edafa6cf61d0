package prices

import "slices"

// DownsampleWindow is the size of the windows Downsample keeps whole: for n closes and a
// budget of maxPoints it is ⌈n / (⌊maxPoints/2⌋ − 1)⌉. Each window needs two points (its
// lowest and its highest close) and the first and last close take one slot each, so this
// is the smallest window for which the guarantee fits the budget. It returns 0 when the
// budget is too small for any window (maxPoints < 4) or the series fits as it is.
func DownsampleWindow(n, maxPoints int) int {
	if n <= maxPoints || maxPoints < 4 {
		return 0
	}
	buckets := maxPoints/2 - 1
	return (n + buckets - 1) / buckets
}

// Downsample reduces points (ascending by date) to at most maxPoints without losing a
// peak: the series is cut into consecutive windows of DownsampleWindow(n, maxPoints)
// closes counted from the first one, and every window keeps both its lowest and its
// highest close (the earlier of equal closes); the first and the last close are always
// kept. So every high and low a reader could see at the chart's resolution is a real
// close that survives, not an average and not a neighbour — the guarantee the history
// API makes. The returned points are the original closes with their exact prices.
//
// With len(points) ≤ maxPoints it returns a copy. The series' lowest and highest close come
// first whatever the budget: maxPoints of 2 keeps just those two, 3 adds the first close (the
// last when the first is an extreme); below 1 yields an empty result, 1 the first close.
func Downsample(points []Close, maxPoints int) []Close {
	if out, ok := fewCloses(points, maxPoints); ok {
		return out
	}
	n := len(points)
	if maxPoints < 4 {
		lo, hi := extremes(points)
		keep := []int{lo, hi}
		for _, i := range []int{0, n - 1} {
			if len(keep) < maxPoints && !slices.Contains(keep, i) {
				keep = append(keep, i)
			}
		}
		slices.Sort(keep)
		return closesAt(points, slices.Compact(keep))
	}
	w := DownsampleWindow(n, maxPoints)
	// Floats order the closes cheaply; decimals decide whenever the floats tie, so the
	// choice is exact (float conversion never reverses an order, it can only merge).
	fs := make([]float64, n)
	for i, p := range points {
		fs[i] = p.Price.InexactFloat64()
	}
	less := func(i, j int) bool {
		if fs[i] != fs[j] {
			return fs[i] < fs[j]
		}
		return points[i].Price.LessThan(points[j].Price)
	}
	keep := make([]int, 0, maxPoints)
	keep = append(keep, 0)
	for lo := 0; lo < n; lo += w {
		hi := min(lo+w, n)
		minI, maxI := lo, lo
		for i := lo + 1; i < hi; i++ {
			if less(i, minI) {
				minI = i
			}
			if less(maxI, i) {
				maxI = i
			}
		}
		keep = append(keep, min(minI, maxI), max(minI, maxI))
	}
	keep = append(keep, n-1)
	// Indices are ascending already (windows are in order and each adds its pair sorted);
	// Compact drops the first/last close when a window picked it too.
	return closesAt(points, slices.Compact(keep))
}

// fewCloses is the reduction of points to at most max that chooses nothing: a copy when they
// fit, none for a budget below 1, the first close for 1; ok is false for any other budget.
func fewCloses(points []Close, max int) (out []Close, ok bool) {
	switch {
	case len(points) <= max:
		return slices.Clone(points), true
	case max < 1:
		return []Close{}, true
	case max == 1:
		return []Close{points[0]}, true
	}
	return nil, false
}

// extremes are the indices of the lowest and the highest close (the earliest of equal ones).
func extremes(points []Close) (lo, hi int) {
	for i := 1; i < len(points); i++ {
		if points[i].Price.LessThan(points[lo].Price) {
			lo = i
		}
		if points[i].Price.GreaterThan(points[hi].Price) {
			hi = i
		}
	}
	return lo, hi
}

// closesAt is the closes at the ascending indices idx.
func closesAt(points []Close, idx []int) []Close {
	out := make([]Close, len(idx))
	for i, j := range idx {
		out[i] = points[j]
	}
	return out
}
