package social

import (
	"context"
	"time"

	"github.com/ouncehq/ounce/internal/job"
)

// Jobs are the service's background loops; the composition root (internal/app) hands them to
// the server's job runner.
func (s *Service) Jobs() []job.Job {
	return []job.Job{{Name: "article viewer pruning", Run: func(ctx context.Context) { s.RunPruner(ctx, 10*time.Minute) }}}
}
