package intel

import (
	"github.com/ouncehq/ounce/internal/job"
)

// Jobs are the service's background loops; the composition root (internal/app) hands them to
// the server's job runner.
func (s *Service) Jobs() []job.Job {
	return []job.Job{{Name: "intel scheduler", Run: s.Scheduler}}
}
