// Package static embeds the built assets served under /static.
package static

import "embed"

// FS holds css/, js/, img/ and the offline page the service worker keeps.
//
//go:embed css js img offline.html
var FS embed.FS
