package advisorhttp

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/advisor"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/views/format"
	"github.com/ouncehq/ounce/views/pages"
)

// advisorExamples are questions the empty chat page suggests.
var advisorExamples = []string{"What is my stack worth?", "What's my break-even on silver?", "Gold's high over the past year",
	"Melt value of $10 face of junk silver", "What if silver hits $50?", "Latest Stack Signal", "COMEX registered silver trend"}

func factViews(fs []advisor.Fact) []pages.FactView {
	out := make([]pages.FactView, 0, len(fs))
	for _, f := range fs {
		v := pages.FactView{Label: f.Label, Value: f.Value, Source: f.Source}
		if !f.AsOf.IsZero() {
			v.AsOf = format.Date(f.AsOf)
		}
		out = append(out, v)
	}
	return out
}

func replyView(id string, r advisor.Reply) pages.ChatMessageView {
	v := pages.ChatMessageView{ID: id, Text: r.Text, Facts: factViews(r.Facts), Writer: advisorWriter(r.Writer), Stale: r.Stale}
	if r.FallbackReason != "" {
		v.Note = "The language model's reply could not be checked against the data, so the built-in engine answered."
	}
	return v
}

func advisorWriter(w string) string {
	if w == advisor.BuiltinWriter {
		return "the built-in engine"
	}
	return strings.TrimPrefix(w, "llm:")
}

func (h *Handlers) advisorView(c *fiber.Ctx, convID string) (pages.AdvisorView, error) {
	u := kit.Caller(c)
	v := pages.AdvisorView{CSRF: kit.CSRF(c), MaxChars: strconv.Itoa(advisor.MaxMessageRunes), Examples: advisorExamples,
		Streaming: h.advisor.LLMConfigured()}
	list, err := h.advisor.Conversations(h.Ctx(c), u, advisor.MaxConversationLimit, 0, "")
	if err != nil {
		return v, err
	}
	loc := account.Location(u)
	for _, cv := range list.Conversations {
		v.Conversations = append(v.Conversations, pages.ConversationLink{ID: cv.ID, Title: cv.Title, When: format.DateIn(cv.UpdatedAt, loc), Active: cv.ID == convID})
	}
	if convID != "" {
		cv, err := h.advisor.ConversationByID(h.Ctx(c), u, convID, "")
		if err != nil {
			return v, err
		}
		v.ConversationID = cv.ID
		for i, m := range cv.Messages {
			mv := pages.ChatMessageView{ID: fmt.Sprintf("m%d", i), User: m.Role == "user", Text: m.Content}
			if !mv.User {
				mv.Facts, mv.Writer = factViews(m.Facts), advisorWriter(m.Writer)
			}
			v.Messages = append(v.Messages, mv)
		}
	}
	if q, err := h.advisor.QuotaOf(h.Ctx(c), u); err == nil {
		v.QuotaText = fmt.Sprintf("%d of %d questions left today.", max(q.Limit-q.Used, 0), q.Limit)
	}
	return v, nil
}

// AdvisorPage is GET /advisor: the chat, with a conversation of the member's when ?c= names one.
func (h *Handlers) AdvisorPage(c *fiber.Ctx) error {
	v, err := h.advisorView(c, c.Query("c"))
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	return kit.Render(c, http.StatusOK, pages.Advisor(h.Meta(c, "Advisor", "advisor"), v))
}

// AdvisorAsk is POST /advisor. Over HTMX it answers the exchange to append (a reply that
// streams in when a model answers); without JavaScript it redirects to the conversation.
func (h *Handlers) AdvisorAsk(c *fiber.Ctx) error {
	u := kit.Caller(c)
	in := advisor.ChatInput{Message: c.FormValue("message"), ConversationID: strings.TrimSpace(c.FormValue("conversation_id"))}
	q := pages.ChatMessageView{User: true, Text: strings.TrimSpace(in.Message)}
	id := strconv.FormatInt(time.Now().UnixNano(), 36)
	if kit.IsHTMX(c) && h.advisor.LLMConfigured() {
		tok, err := h.advisor.HoldQuestion(u, in)
		if err != nil {
			return h.advisorError(c, in.ConversationID, err)
		}
		a := pages.ChatMessageView{ID: id, StreamURL: "/advisor/stream/" + tok}
		return kit.Render(c, http.StatusOK, pages.AdvisorExchange(q, a, in.ConversationID, strconv.Itoa(advisor.MaxMessageRunes)))
	}
	r, err := h.advisor.Chat(h.Ctx(c), u, in)
	if err != nil {
		return h.advisorError(c, in.ConversationID, err)
	}
	if !kit.IsHTMX(c) {
		return c.Redirect("/advisor?c="+r.ConversationID, http.StatusSeeOther)
	}
	return kit.Render(c, http.StatusOK, pages.AdvisorExchange(q, replyView(id, r), r.ConversationID, strconv.Itoa(advisor.MaxMessageRunes)))
}

// advisorError shows a refused question (bad length, quota) in the page: as a reply bubble
// over HTMX, else on the page again.
func (h *Handlers) advisorError(c *fiber.Ctx, convID string, err error) error {
	e, ok := apperr.As(err)
	if !ok || (e.Kind != apperr.Invalid && e.Kind != apperr.RateLimited && e.Kind != apperr.NotFound) {
		return err
	}
	msg := apperr.Sentence(e.Msg)
	if len(e.Fields) > 0 {
		msg = "Your question " + e.Fields[0].Message + "."
	}
	if kit.IsHTMX(c) {
		return kit.Render(c, http.StatusOK, pages.AdvisorMessage(pages.ChatMessageView{ID: "error", Text: msg}))
	}
	v, verr := h.advisorView(c, convID)
	if verr != nil {
		v, _ = h.advisorView(c, "")
	}
	v.Error = msg
	status := http.StatusBadRequest
	if e.Kind == apperr.RateLimited {
		status = http.StatusTooManyRequests
	}
	return kit.Render(c, status, pages.Advisor(h.Meta(c, "Advisor", "advisor"), v))
}

// AdvisorStream is GET /advisor/stream/:token: the reply to a held question as server-sent
// events, "delta" for each piece of the model's text and "done" with the checked reply, which
// replaces the streamed text (it may be the built-in engine's answer when the model's figures
// did not match the data).
func (h *Handlers) AdvisorStream(c *fiber.Ctx) error {
	u := kit.Caller(c)
	in, ok := h.advisor.TakeQuestion(u, c.Params("token"))
	if !ok {
		return apperr.NotFoundf("question")
	}
	id := strconv.FormatInt(time.Now().UnixNano(), 36)
	kit.StartSSE(c, func(s *kit.SSEStream) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		go func() {
			select {
			case <-h.Done:
				cancel()
			case <-ctx.Done():
			}
		}()
		r, err := h.advisor.ChatStream(ctx, u, in, func(delta string) {
			s.Send(kit.SSEEvent("delta", html.EscapeString(delta)))
		})
		var buf bytes.Buffer
		if err != nil {
			msg := "The advisor could not answer just now."
			if e, ok := apperr.As(err); ok && e.Kind != apperr.Internal {
				msg = apperr.Sentence(e.Msg)
			} else {
				h.Log.Error("advisor stream", "err", err)
			}
			_ = pages.AdvisorMessage(pages.ChatMessageView{ID: id, Text: msg}).Render(ctx, &buf)
		} else {
			_ = pages.AdvisorReply(replyView(id, r), r.ConversationID).Render(ctx, &buf)
		}
		s.Send(kit.SSEEvent("done", strings.TrimSpace(buf.String())))
	})
	return nil
}

func briefView(b advisor.Brief, loc *time.Location) pages.BriefView {
	v := pages.BriefView{Date: b.Date.String(), Headline: b.Headline, Generated: b.GeneratedAt.In(loc).Format("15:04 MST"), Writer: advisorWriter(b.Writer), Stale: b.Stale}
	for _, s := range b.Sections {
		v.Sections = append(v.Sections, pages.BriefSectionView{Title: s.Title, Text: s.Text})
	}
	return v
}

// BriefsPage is GET /brief: the member's briefs, newest first.
func (h *Handlers) BriefsPage(c *fiber.Ctx) error {
	u := kit.Caller(c)
	list, err := h.advisor.Briefs(h.Ctx(c), u, 30, 0)
	if err != nil {
		return err
	}
	loc := account.Location(u)
	today := h.Now().In(loc).Format("2006-01-02")
	v := pages.BriefsView{CSRF: kit.CSRF(c), Today: today}
	for _, b := range list.Briefs {
		v.Briefs = append(v.Briefs, briefView(b, loc))
		if b.Date.String() == today {
			v.HasToday = true
		}
	}
	v.Flash = kit.Flash(c, "generated", "Today's brief is written.")
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	return kit.Render(c, http.StatusOK, pages.Briefs(h.Meta(c, "Daily brief", "brief"), v))
}

// BriefGenerate is POST /brief/generate.
func (h *Handlers) BriefGenerate(c *fiber.Ctx) error {
	regen := c.FormValue("regenerate") == "true"
	if _, _, err := h.advisor.GenerateBrief(h.Ctx(c), kit.Caller(c), regen, ""); err != nil {
		return err
	}
	return c.Redirect("/brief?generated=1", http.StatusSeeOther)
}

// BriefCard is GET /brief/card: the dashboard's first card, today's brief or the way to write it.
func (h *Handlers) BriefCard(c *fiber.Ctx) error {
	v, err := h.briefCardView(c)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	c.Vary("HX-Request")
	return kit.Render(c, http.StatusOK, pages.BriefCard(v))
}

// BriefCardIn is the card drawn into the dashboard's own response (one stored row read, so
// the page need not fetch and swap it after loading). A member without the brief (not Gold)
// gets no card, as GET /brief/card refuses them.
func (h *Handlers) BriefCardIn(c *fiber.Ctx) (templ.Component, error) {
	if !account.IsGold(kit.Caller(c)) {
		return templ.NopComponent, nil
	}
	v, err := h.briefCardView(c)
	if err != nil {
		return nil, err
	}
	return pages.BriefCard(v), nil
}

// briefCardView is today's brief of the caller, or the way to write it.
func (h *Handlers) briefCardView(c *fiber.Ctx) (pages.BriefCardView, error) {
	u := kit.Caller(c)
	loc := account.Location(u)
	v := pages.BriefCardView{CSRF: kit.CSRF(c), Today: format.DateIn(h.Now(), loc)}
	b, err := h.advisor.BriefOf(h.Ctx(c), u, "", "")
	switch {
	case err == nil:
		bv := briefView(b, loc)
		v.Brief = &bv
	case apperr.KindOf(err) != apperr.NotFound:
		return v, err
	}
	return v, nil
}
