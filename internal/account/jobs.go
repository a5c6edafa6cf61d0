package account

import (
	"time"

	"github.com/ouncehq/ounce/internal/job"
)

// Jobs are the service's background loops; the composition root (internal/app) hands them to
// the server's job runner.
func (s *Service) Jobs() []job.Job {
	return []job.Job{job.Every("sign-in failure cleanup", time.Hour, s.log, s.PruneSignInFailures)}
}
