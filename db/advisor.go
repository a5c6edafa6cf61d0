package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// The advisor's storage: daily briefs, chat conversations and their messages, and the daily
// chat counts behind the tier quota (migration 0009).

// Brief is one member's stored daily brief; Content is the brief as the advisor encoded it.
type Brief struct {
	ID          string    `db:"id"`
	UserID      int64     `db:"user_id"`
	Day         Date      `db:"day"`
	GeneratedAt time.Time `db:"generated_at"`
	Writer      string    `db:"writer"`
	Content     string    `db:"content"`
}

// BriefByDay returns the member's brief of the day, or ErrNotFound.
func (s *Store) BriefByDay(ctx context.Context, userID int64, day Date) (Brief, error) {
	var b Brief
	err := s.db.GetContext(ctx, &b, s.rebind(`SELECT id, user_id, day, generated_at, writer, content FROM advisor_briefs WHERE user_id = ? AND day = ?`), userID, day)
	return b, notFound(err)
}

// BriefBefore returns the member's latest brief of a day before day, or ErrNotFound.
func (s *Store) BriefBefore(ctx context.Context, userID int64, day Date) (Brief, error) {
	var b Brief
	err := s.db.GetContext(ctx, &b, s.rebind(`SELECT id, user_id, day, generated_at, writer, content FROM advisor_briefs
		WHERE user_id = ? AND day < ? ORDER BY day DESC LIMIT 1`), userID, day)
	return b, notFound(err)
}

// BriefsByUser lists the member's briefs, newest day first, and how many there are.
func (s *Store) BriefsByUser(ctx context.Context, userID int64, limit, offset int) ([]Brief, int, error) {
	return page[Brief](ctx, s, "briefs", `id, user_id, day, generated_at, writer, content`, `advisor_briefs WHERE user_id = ?`, []any{userID},
		`day DESC`, limit, offset)
}

// SaveBrief stores the member's brief of b.Day. With replace false an existing brief of that
// day wins and is returned (two concurrent first generations store one brief); with replace
// true b takes its place.
func (s *Store) SaveBrief(ctx context.Context, b Brief, replace bool) (Brief, error) {
	if replace {
		_, err := s.db.ExecContext(ctx, s.rebind(`INSERT INTO advisor_briefs (id, user_id, day, generated_at, writer, content) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (user_id, day) DO UPDATE SET id = excluded.id, generated_at = excluded.generated_at, writer = excluded.writer, content = excluded.content`),
			b.ID, b.UserID, b.Day, b.GeneratedAt, b.Writer, b.Content)
		if err != nil {
			return Brief{}, fmt.Errorf("save brief: %w", err)
		}
		return s.BriefByDay(ctx, b.UserID, b.Day)
	}
	_, err := s.db.ExecContext(ctx, s.rebind(`INSERT INTO advisor_briefs (id, user_id, day, generated_at, writer, content) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (user_id, day) DO NOTHING`), b.ID, b.UserID, b.Day, b.GeneratedAt, b.Writer, b.Content)
	if err != nil {
		return Brief{}, fmt.Errorf("save brief: %w", err)
	}
	return s.BriefByDay(ctx, b.UserID, b.Day)
}

// GoldUsers lists the ids and time zones of Gold members, for the morning brief job.
func (s *Store) GoldUsers(ctx context.Context) ([]User, error) {
	var out []User
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT `+userCols+` FROM users WHERE tier = ? ORDER BY id`), TierGold)
	return out, err
}

// Conversation is one advisor chat of a member.
type Conversation struct {
	ID        string    `db:"id"`
	UserID    int64     `db:"user_id"`
	Title     string    `db:"title"`
	CreatedAt time.Time `db:"created_at"`
	UpdatedAt time.Time `db:"updated_at"`
}

// ChatMessage is one turn of a conversation; Facts and ToolCalls are JSON the advisor wrote.
type ChatMessage struct {
	ConversationID string    `db:"conversation_id"`
	Seq            int64     `db:"seq"`
	Role           string    `db:"role"`
	Content        string    `db:"content"`
	Facts          string    `db:"facts"`
	ToolCalls      string    `db:"tool_calls"`
	Writer         string    `db:"writer"`
	CreatedAt      time.Time `db:"created_at"`
}

const conversationCols = `id, user_id, title, created_at, updated_at`

// ConversationByID returns the member's conversation; another member's is ErrNotFound.
func (s *Store) ConversationByID(ctx context.Context, userID int64, id string) (Conversation, error) {
	return memberRow[Conversation](ctx, s, conversationCols, "advisor_conversations", userID, id)
}

// ConversationsByUser lists the member's conversations, most recently active first.
func (s *Store) ConversationsByUser(ctx context.Context, userID int64, limit, offset int) ([]Conversation, int, error) {
	return page[Conversation](ctx, s, "conversations", conversationCols, `advisor_conversations WHERE user_id = ?`, []any{userID},
		`updated_at DESC, id DESC`, limit, offset)
}

// DeleteConversation removes the member's conversation and its messages; another member's
// is ErrNotFound.
func (s *Store) DeleteConversation(ctx context.Context, userID int64, id string) error {
	return s.deleteMemberRow(ctx, "conversation", "advisor_conversations", userID, id)
}

// MessagesOf returns a conversation's messages in order.
func (s *Store) MessagesOf(ctx context.Context, conversationID string) ([]ChatMessage, error) {
	out := []ChatMessage{}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT conversation_id, seq, role, content, facts, tool_calls, writer, created_at
		FROM advisor_messages WHERE conversation_id = ? ORDER BY seq`), conversationID)
	return out, err
}

// AppendMessages stores messages at the end of the member's conversation, creating it (with
// title) when c.ID is new, and returns the conversation. A conversation id that belongs to
// another member is ErrNotFound.
func (s *Store) AppendMessages(ctx context.Context, c Conversation, msgs []ChatMessage) (Conversation, error) {
	now := s.now()
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		var owner int64
		err := tx.GetContext(ctx, &owner, tx.Rebind(`SELECT user_id FROM advisor_conversations WHERE id = ?`), c.ID)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			c.CreatedAt = now
			if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO advisor_conversations (`+conversationCols+`) VALUES (?, ?, ?, ?, ?)`),
				c.ID, c.UserID, c.Title, now, now); err != nil {
				return fmt.Errorf("insert conversation: %w", err)
			}
		case err != nil:
			return err
		case owner != c.UserID:
			return ErrNotFound
		default:
			if _, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE advisor_conversations SET updated_at = ? WHERE id = ?`), now, c.ID); err != nil {
				return err
			}
		}
		var seq int64
		if err := tx.GetContext(ctx, &seq, tx.Rebind(`SELECT COALESCE(MAX(seq), 0) FROM advisor_messages WHERE conversation_id = ?`), c.ID); err != nil {
			return err
		}
		for _, m := range msgs {
			seq++
			if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO advisor_messages (conversation_id, seq, role, content, facts, tool_calls, writer, created_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?)`), c.ID, seq, m.Role, m.Content, m.Facts, m.ToolCalls, m.Writer, now); err != nil {
				return fmt.Errorf("insert message: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return Conversation{}, err
	}
	return s.ConversationByID(ctx, c.UserID, c.ID)
}

// UseAdvisorQuota counts one chat message for the member's day when fewer than limit were
// counted, and reports whether it did. The check and the count are one statement, so
// concurrent requests cannot both take the last message.
func (s *Store) UseAdvisorQuota(ctx context.Context, userID int64, day Date, limit int) (bool, error) {
	if limit <= 0 {
		return false, nil
	}
	var used int
	err := s.db.GetContext(ctx, &used, s.rebind(`INSERT INTO advisor_usage (user_id, day, used) VALUES (?, ?, 1)
		ON CONFLICT (user_id, day) DO UPDATE SET used = advisor_usage.used + 1 WHERE advisor_usage.used < ?
		RETURNING used`), userID, day, limit)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("advisor quota: %w", err)
	}
	return true, nil
}

// AdvisorUsed returns how many chat messages the member has used on day.
func (s *Store) AdvisorUsed(ctx context.Context, userID int64, day Date) (int, error) {
	var used int
	err := s.db.GetContext(ctx, &used, s.rebind(`SELECT used FROM advisor_usage WHERE user_id = ? AND day = ?`), userID, day)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return used, err
}

// PruneAdvisorUsage forgets the counts of days before day.
func (s *Store) PruneAdvisorUsage(ctx context.Context, before Date) error {
	_, err := s.db.ExecContext(ctx, s.rebind(`DELETE FROM advisor_usage WHERE day < ?`), before)
	return err
}
