package mail

import "github.com/ouncehq/ounce/internal/job"

// Jobs are the service's background loops: the outbox worker, only when mail is on (with no
// SMTP server configured nothing is queued, so there is nothing to drain).
func (s *Service) Jobs() []job.Job {
	if !s.Enabled() {
		return nil
	}
	return []job.Job{{Name: "mail", Run: s.Run}}
}
