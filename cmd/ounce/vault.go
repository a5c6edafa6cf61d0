package main

import (
	"context"
	"io"
)

// cmdVault handles `ounce vault …` (import CME reports, set open interest).
func cmdVault(ctx context.Context, args []string, stdout io.Writer) error {
	return usageError{"vault: not available yet"}
}
