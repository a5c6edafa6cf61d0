package web

// SetImmutable sets Fiber's Immutable for the applications New builds next (the benchmark
// that measures its cost builds one of each).
func SetImmutable(v bool) { immutable = v }
