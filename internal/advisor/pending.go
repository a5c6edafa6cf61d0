package advisor

import (
	"sync"
	"time"

	"github.com/ouncehq/ounce/db"
)

// pendingTTL is how long a question posted from the chat page waits for its stream to open.
const pendingTTL = 2 * time.Minute

// A streamed reply takes two requests: the page posts the question (CSRF-protected) and then
// opens an event stream for the answer. The question waits here in between, keyed by a random
// token and bound to the member, on the instance that took the post.
type pendingQuestion struct {
	userID int64
	in     ChatInput
	at     time.Time
}

type pendingSet struct {
	mu sync.Mutex
	m  map[string]pendingQuestion
}

// HoldQuestion validates a question and keeps it for StreamQuestion, returning its token.
// The quota is counted when the stream runs.
func (s *Service) HoldQuestion(u db.User, in ChatInput) (string, error) {
	msg, err := ValidateMessage(in.Message)
	if err != nil {
		return "", err
	}
	in.Message = msg
	now := s.now()
	s.pending.mu.Lock()
	defer s.pending.mu.Unlock()
	if s.pending.m == nil {
		s.pending.m = map[string]pendingQuestion{}
	}
	for k, p := range s.pending.m {
		if now.Sub(p.at) > pendingTTL {
			delete(s.pending.m, k)
		}
	}
	tok := newID("q_")
	s.pending.m[tok] = pendingQuestion{userID: u.ID, in: in, at: now}
	return tok, nil
}

// TakeQuestion returns and forgets the member's held question; another member's token, an
// expired one or one already taken is not found.
func (s *Service) TakeQuestion(u db.User, token string) (ChatInput, bool) {
	s.pending.mu.Lock()
	defer s.pending.mu.Unlock()
	p, ok := s.pending.m[token]
	if !ok || p.userID != u.ID || s.now().Sub(p.at) > pendingTTL {
		return ChatInput{}, false
	}
	delete(s.pending.m, token)
	return p.in, true
}
