package main

import (
	"context"
	"io"
)

// cmdPrices handles `ounce prices import`.
func cmdPrices(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return usageError{"prices: not available yet"}
}
