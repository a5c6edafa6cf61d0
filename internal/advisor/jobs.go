package advisor

import (
	"context"
	"time"

	"github.com/ouncehq/ounce/internal/job"
)

// Jobs are the service's background loops; the composition root (internal/app) hands them to
// the server's job runner.
func (s *Service) Jobs() []job.Job {
	return []job.Job{{Name: "morning briefs", Run: func(ctx context.Context) { s.RunBriefs(ctx, 5*time.Minute) }}}
}
