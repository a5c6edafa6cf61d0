package fx

import "github.com/ouncehq/ounce/internal/job"

// Jobs are the service's background loops: the daily ECB refresh (run by the leader; offline
// it logs once and ends).
func (s *Service) Jobs() []job.Job {
	return []job.Job{{Name: "exchange rates refresh", Run: s.Run}}
}
