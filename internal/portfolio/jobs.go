package portfolio

import (
	"context"
	"time"

	"github.com/ouncehq/ounce/internal/job"
)

// Jobs are the service's background loops; the composition root (internal/app) hands them to
// the server's job runner.
func (s *Service) Jobs() []job.Job {
	// The spot-at-purchase refresh needs live prices.
	if !s.Live() {
		return nil
	}
	return []job.Job{{Name: "spot at purchase refresh", Run: func(ctx context.Context) { s.RunSpotRefresh(ctx, time.Minute) }}}
}
