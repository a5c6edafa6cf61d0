// Package enum holds what every string-based enumeration of the domain shares (metals, units,
// news categories, chart ranges): its values as plain strings, for the enums of documents and
// the "want one of …" of error messages.
package enum

// Strings is each of values as a string, in order.
func Strings[S ~string](values []S) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}
