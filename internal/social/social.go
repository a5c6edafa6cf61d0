// Package social is how readers react to Stack Signal articles: views counted once per reader
// and day, likes, and plain-text comments with per-member limits and moderation. Every use
// case takes the caller as a db.User the transport authenticated (session or bearer key); a
// userId a client sends is only ever checked against that caller, never trusted. Counters on
// articles change in the same transaction as the rows they count, so they stay exact under
// concurrency.
package social

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/wallclock"
)

// Config is the social service's settings.
type Config struct {
	// AddressKey keys the hash under which a client without cookie or key is remembered for
	// a minute by the view guard (OUNCE_SOCIAL_SECRET). Instances sharing one database should
	// share it; empty means a random key per process. Addresses themselves are never stored.
	AddressKey string
}

// Deps are what the service is built from.
type Deps struct {
	Store  *db.Store
	Config Config
	Now    func() time.Time
	Logger *slog.Logger
}

// Service holds the social use cases.
type Service struct {
	store   Store
	addrKey []byte
	now     func() time.Time
	log     *slog.Logger
	// vk signs visitor cookies (visitor.go), read from the store's secrets once.
	vkMu sync.Mutex
	vk   []byte
}

// New builds the service.
func New(d Deps) *Service {
	s := &Service{store: d.Store, now: d.Now, log: d.Logger, addrKey: []byte(d.Config.AddressKey)}
	s.now = wallclock.Or(s.now)
	s.log = cmp.Or(s.log, slog.Default())
	if len(s.addrKey) == 0 {
		s.addrKey = make([]byte, 32)
		if _, err := rand.Read(s.addrKey); err != nil {
			panic(err) // the OS random source failing is not recoverable
		}
	}
	return s
}

// Limits of the comment rules.
const (
	// MaxCommentRunes is the longest comment, in characters (Unicode code points).
	MaxCommentRunes = 1000
	// CommentsPerMinute and CommentsPerDay bound how often one member may comment; the day is
	// the last 24 hours.
	CommentsPerMinute = 5
	CommentsPerDay    = 100
	// DefaultCommentLimit and MaxCommentLimit page the comment list.
	DefaultCommentLimit = 50
	MaxCommentLimit     = 100
	// MaxCommentOffset bounds offsets so a huge number is refused, not an overflow.
	MaxCommentOffset = 1_000_000
	// ViewGuardWindow is how often a client with neither cookie nor key counts per article
	// from one address.
	ViewGuardWindow = time.Minute
	// maxRef is the longest article id or slug worth looking up.
	maxRef = 200
)

// article resolves an article by id or slug; anything else is "article not found".
func (s *Service) article(ctx context.Context, ref string) (string, error) {
	if ref == "" || len(ref) > maxRef {
		return "", apperr.NotFoundf("article")
	}
	id, err := s.store.ArticleIDByRef(ctx, ref)
	if errors.Is(err, db.ErrNotFound) {
		return "", apperr.NotFoundf("article")
	}
	return id, err
}

// checkClaim is account.CheckClaim for the social features: a member acts only as themself.
func checkClaim(caller db.User, claimed string) error {
	return account.CheckClaim(caller, claimed, "you can only act as yourself")
}

// requireMember is the rule of every write: a signed-in member.
func requireMember(u db.User, what string) error {
	if u.ID == 0 {
		return apperr.New(apperr.Unauthorized, "sign in to %s", what)
	}
	return nil
}

// Viewer is who is reading an article, as the transport knows them. At most one identity
// counts, in this order: the API key, the member, the visitor cookie; without any of them the
// client's address guards the count.
type Viewer struct {
	// KeyID is the bearer key of an API call (0 without one).
	KeyID int64
	// User is the signed-in member (zero for a visitor).
	User db.User
	// Visitor is the id in the visitor cookie of an anonymous browser, only when this server
	// signed it (VisitorID; "" without one).
	Visitor string
	// NewVisitor is a cookie value the transport is about to set on a visitor who came
	// without one: when this view counts, the visitor is remembered by it for the day.
	NewVisitor string
	// Address is the client's IP address; it is only ever kept as a keyed hash, for a minute.
	Address string
	// ClaimedUserID is the userId the client sent, if any.
	ClaimedUserID string
}

// identity is the stored viewer key: never an address, and a hash for the cookie.
func (v Viewer) identity() string {
	switch {
	case v.KeyID != 0:
		return "k:" + strconv.FormatInt(v.KeyID, 10)
	case v.User.ID != 0:
		return "u:" + strconv.FormatInt(v.User.ID, 10)
	case v.Visitor != "":
		return visitorKey(v.Visitor)
	}
	return ""
}

func visitorKey(cookie string) string {
	sum := sha256.Sum256([]byte("ounce visitor " + cookie))
	return "c:" + hex.EncodeToString(sum[:16])
}

// ViewResult is the article's view count after a view, and whether this view counted.
type ViewResult struct {
	Count   int64
	Counted bool
}

// RecordView counts a view of the article (id or slug) once per viewer and UTC day. A visitor
// with no cookie counts once per request, but never more than once per article per minute
// from one address.
func (s *Service) RecordView(ctx context.Context, ref string, v Viewer) (ViewResult, error) {
	if err := checkClaim(v.User, v.ClaimedUserID); err != nil {
		return ViewResult{}, err
	}
	id, err := s.article(ctx, ref)
	if err != nil {
		return ViewResult{}, err
	}
	now := s.now().UTC()
	day := db.NewDate(now)
	var count int64
	var counted bool
	if who := v.identity(); who != "" {
		count, counted, err = s.store.RecordView(ctx, id, who, day)
	} else {
		av := db.AnonymousView{AddressHash: s.addressHash(v.Address), Window: ViewGuardWindow, Day: day, At: now}
		if v.NewVisitor != "" {
			// The browser that is given its cookie now is not counted again today.
			av.Remember = visitorKey(v.NewVisitor)
		}
		count, counted, err = s.store.RecordAnonymousView(ctx, id, av)
	}
	if err != nil {
		return ViewResult{}, articleErr(err)
	}
	return ViewResult{Count: count, Counted: counted}, nil
}

// addressHash is the keyed hash an address is known by in the view guard.
func (s *Service) addressHash(addr string) string {
	m := hmac.New(sha256.New, s.addrKey)
	m.Write([]byte(addr))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// articleErr maps the store's "no such article" to the domain's.
func articleErr(err error) error {
	if errors.Is(err, db.ErrNotFound) {
		return apperr.NotFoundf("article")
	}
	return err
}

// PruneViews forgets which viewers were counted before yesterday (UTC) and address guards past
// their window; the counts stay.
func (s *Service) PruneViews(ctx context.Context) error {
	now := s.now().UTC()
	n, err := s.store.PruneViews(ctx, db.NewDate(now.AddDate(0, 0, -1)), now.Add(-ViewGuardWindow))
	if err == nil && n > 0 {
		s.log.DebugContext(ctx, "pruned article viewers", "rows", n)
	}
	return err
}

// viewPruneLockKey is the advisory lock of the view pruner among instances sharing PostgreSQL.
const viewPruneLockKey = 7302813

// RunPruner prunes old viewer rows every interval until ctx ends, on one instance at a time.
func (s *Service) RunPruner(ctx context.Context, interval time.Duration) {
	s.store.RunAsLeader(ctx, viewPruneLockKey, time.Minute, func(ctx context.Context) {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			if err := s.PruneViews(ctx); err != nil && ctx.Err() == nil {
				s.log.WarnContext(ctx, "pruning article viewers", "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	})
}
