// Package advisor talks to each stacker about their own stack: a daily brief and a chat
// advisor. Every figure comes from Ounce's data (the member's holdings, the price board and
// history, Stack Signal, COMEX and dealer quotes) through a small set of functions. Offline,
// a built-in engine recognises the question and answers from those functions; with an
// OpenAI-compatible model configured the model calls the same functions as tools, and a reply
// whose figures do not come from the tool results is replaced by the built-in answer.
//
// Identities come only from the caller the transport authenticated; a userId a client sends
// is compared with it and never trusted on its own.
package advisor

import (
	"cmp"
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/comex"
	"github.com/ouncehq/ounce/internal/dealers"
	"github.com/ouncehq/ounce/internal/intel"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/performance"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/internal/prices"
	"github.com/ouncehq/ounce/internal/wallclock"
)

// Limits of the chat.
const (
	// MaxMessageRunes is the longest question, in characters (Unicode code points).
	MaxMessageRunes = 2000
	// FreeDailyQuota and GoldDailyQuota are chat messages per member and day (the day in the
	// member's time zone).
	FreeDailyQuota = 5
	GoldDailyQuota = 100
	// MaxQuestionParts is how many parts of one question ("… and …") the built-in engine
	// answers; it says so when a question has more.
	MaxQuestionParts = 6
	// MaxConversationLimit pages the conversation list.
	DefaultConversationLimit = 20
	MaxConversationLimit     = 100
	// BriefHour is the local hour the morning job writes Gold members' briefs.
	BriefHour = 7
)

// Config is the advisor's settings. A model is used when LLMBaseURL and LLMModel are both
// set (OUNCE_LLM_BASE_URL, OUNCE_LLM_MODEL, OUNCE_LLM_API_KEY: the Stack Signal writer's
// server; the web layer leaves them empty under OUNCE_OFFLINE). It answers chat questions
// through the tools and rewrites the daily brief's prose; both are checked against the data.
type Config struct {
	LLMBaseURL string
	LLMModel   string
	LLMAPIKey  string
	// LLMTimeout bounds one whole chat answer through the model (default 30 s); past it the
	// built-in engine answers.
	LLMTimeout time.Duration
}

// FiredAlert is a price alert that fired, as the brief reports it.
type FiredAlert struct {
	Metal     metals.Metal
	Direction string // "above" or "below"
	Target    string // the alert's price, as entered
	Price     string // the price that fired it
	// Currency and Unit are what Target and Price are in ("" is USD per oz).
	Currency string
	Unit     string
	FiredAt  time.Time
}

// FiredAlerts reads the member's price alerts that fired since a time. It is optional: without
// it the brief says that no alerts are set up here.
type FiredAlerts interface {
	FiredSince(ctx context.Context, userID int64, since time.Time) ([]FiredAlert, error)
}

// Deps are what the service is built from. Every data source but Store may be nil; the
// advisor then says it has no such data rather than inventing it.
type Deps struct {
	Store     *db.Store
	Portfolio *portfolio.Service
	Market    *prices.Service
	Intel     *intel.Service
	Vault     *comex.Service
	Dealers   *dealers.Service
	Alerts    FiredAlerts
	// FX turns the data's US dollars into the member's display currency; nil keeps dollars.
	FX     Rates
	Config Config
	Now    func() time.Time
	Logger *slog.Logger
	// LLM replaces the model client built from Config (tests).
	LLM ChatModel

	// Performance answers how the stack did over a period (nil: the advisor says it cannot).
	Performance *performance.Service
}

// Service holds the advisor use cases.
type Service struct {
	store     Store
	portfolio *portfolio.Service
	market    *prices.Service
	intel     *intel.Service
	vault     *comex.Service
	dealers   *dealers.Service
	alerts    FiredAlerts
	fx        Rates
	cfg       Config
	llm       ChatModel
	now       func() time.Time
	log       *slog.Logger
	tools     []tool
	pending   pendingSet

	performance *performance.Service
}

// New builds the service.
func New(d Deps) *Service {
	s := &Service{store: d.Store, portfolio: d.Portfolio, market: d.Market, intel: d.Intel, vault: d.Vault,
		dealers: d.Dealers, alerts: d.Alerts, fx: d.FX, cfg: d.Config, llm: d.LLM, now: d.Now, log: d.Logger}
	s.performance = d.Performance
	s.now = wallclock.Or(s.now)
	s.log = cmp.Or(s.log, slog.Default())
	if s.cfg.LLMTimeout <= 0 {
		s.cfg.LLMTimeout = 30 * time.Second
	}
	if s.llm == nil && strings.TrimSpace(s.cfg.LLMBaseURL) != "" && strings.TrimSpace(s.cfg.LLMModel) != "" {
		s.llm = NewOpenAIModel(s.cfg.LLMBaseURL, s.cfg.LLMModel, s.cfg.LLMAPIKey)
	}
	s.tools = s.toolset()
	return s
}

// SetAlerts connects the price alerts once they exist (the alerts service is built later).
func (s *Service) SetAlerts(a FiredAlerts) { s.alerts = a }

// LLMConfigured reports whether chat answers go through a model first.
func (s *Service) LLMConfigured() bool { return s.llm != nil }

// Fact is one figure a reply used: what it is, its value as shown, when it was true and where
// it came from.
type Fact struct {
	Label  string
	Value  string
	AsOf   time.Time
	Source string
}

// ToolCall is one function the advisor called for a reply, with its arguments as JSON.
type ToolCall struct {
	Name      string
	Arguments string
}

// checkClaim is account.CheckClaim for the advisor: absent is fine, another member's id is
// 403.
func checkClaim(caller db.User, claimed string) error {
	return account.CheckClaim(caller, claimed, "the advisor only talks about your own stack")
}

// CheckClaim is checkClaim for transports that must refuse before reading a body.
func CheckClaim(caller db.User, claimed string) error { return checkClaim(caller, claimed) }

// localDay is the member's calendar day at t in their time zone.
func localDay(u db.User, t time.Time) (db.Date, *time.Location) {
	loc := account.Location(u)
	lt := t.In(loc)
	return db.Date{Time: time.Date(lt.Year(), lt.Month(), lt.Day(), 0, 0, 0, 0, time.UTC)}, loc
}

// nextMidnight is when the member's day after t begins.
func nextMidnight(u db.User, t time.Time) time.Time {
	loc := account.Location(u)
	lt := t.In(loc)
	return time.Date(lt.Year(), lt.Month(), lt.Day()+1, 0, 0, 0, 0, loc)
}
