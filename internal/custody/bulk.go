package custody

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// MaxBulk is how many lots one bulk action may name (the ledger lists at most as many), and
// MaxBulkBody the size of its body.
const (
	MaxBulk     = portfolio.MaxLedgerLots
	MaxBulkBody = 64 << 10
)

// The bulk actions on selected lots.
const (
	BulkMove  = "move"
	BulkTag   = "tag"
	BulkUntag = "untag"
)

// BulkActions are the actions POST /v1/holdings/bulk takes.
var BulkActions = []string{BulkMove, BulkTag, BulkUntag}

// BulkInput is a bulk action on the member's lots: move them (to ToLocationID, nil or ""
// unassigned, on Date with Note) or add or remove Tag.
type BulkInput struct {
	IDs          []string `json:"ids"`
	Action       string   `json:"action"`
	ToLocationID *string  `json:"to_location_id"`
	Date         string   `json:"date"`
	Note         string   `json:"note"`
	Tag          string   `json:"tag"`
	// HasTo is whether the body named to_location_id (null included).
	HasTo bool `json:"-"`
}

// ParseBulkJSON reads a bulk body strictly (unknown fields are errors).
func ParseBulkJSON(body []byte) (BulkInput, error) {
	var in BulkInput
	if len(body) > MaxBulkBody {
		return in, apperr.New(apperr.TooLarge, "body larger than %d bytes", MaxBulkBody)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil || raw == nil {
		return in, apperr.InvalidField("body", "must be one JSON object")
	}
	_, in.HasTo = raw["to_location_id"]
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Field != "" {
			if ute.Field == "ids" || strings.HasPrefix(ute.Field, "ids.") {
				return in, apperr.InvalidField("ids", "must be an array of holding ids (strings)")
			}
			return in, apperr.InvalidField(ute.Field, "must be a string")
		}
		if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return in, apperr.InvalidField(strings.Trim(f, `"`), "unknown field")
		}
		return in, apperr.InvalidField("body", "must be one JSON object")
	}
	return in, nil
}

// Bulk applies one action to each of the member's lots named, all or nothing: a lot that is
// not theirs (or does not exist) is a 404 naming its id, a move breaking the rules of one
// move (a date before a lot's purchase, a lot already there) a 422 naming the lot, and then
// nothing is changed. It answers how many lots were changed.
func (s *Service) Bulk(ctx context.Context, u db.User, in BulkInput) (int, error) {
	if err := requireGold(u); err != nil {
		return 0, err
	}
	var ids []string
	seen := map[string]bool{}
	for _, id := range in.IDs {
		id = strings.TrimSpace(id)
		if id == "" || seen[id] {
			continue
		}
		if len(id) > 64 {
			return 0, apperr.InvalidField("ids", "each id is at most 64 characters")
		}
		seen[id] = true
		ids = append(ids, id)
	}
	switch {
	case len(ids) == 0:
		return 0, apperr.InvalidField("ids", "select at least one holding")
	case len(ids) > MaxBulk:
		return 0, apperr.InvalidField("ids", "at most 200 holdings at once")
	}
	var errs []apperr.FieldError
	bad := func(f, m string) { errs = append(errs, apperr.FieldError{Field: f, Message: m}) }
	var tag string
	switch in.Action {
	case BulkMove:
		if !in.HasTo {
			bad("to_location_id", "is required: a location id, or null to unassign")
		}
	case BulkTag, BulkUntag:
		t, msg := portfolio.CleanTags([]string{in.Tag})
		switch {
		case msg != "":
			bad("tag", msg)
		case len(t) == 0:
			bad("tag", "is required")
		default:
			tag = t[0]
		}
	default:
		bad("action", "must be one of move, tag, untag")
	}
	if err := apperr.InvalidFields(errs); err != nil {
		return 0, err
	}
	lots := make([]portfolio.Holding, len(ids))
	for i, id := range ids {
		h, err := s.portfolio.GetHolding(ctx, u, id)
		if err != nil {
			if apperr.KindOf(err) == apperr.NotFound {
				return 0, apperr.New(apperr.NotFound, "holding %s not found: nothing was changed", id)
			}
			return 0, err
		}
		lots[i] = h
	}
	if in.Action == BulkMove {
		return s.bulkMove(ctx, u, lots, in)
	}
	tags := make(map[string]string, len(lots))
	for _, h := range lots {
		var next []string
		has := false
		for _, t := range h.Tags {
			if t == tag {
				has = true
				if in.Action == BulkUntag {
					continue
				}
			}
			next = append(next, t)
		}
		if in.Action == BulkTag && !has {
			if len(next) >= portfolio.MaxTags {
				return 0, apperr.InvalidField("tag", "holding "+h.ID+" already has 20 tags, the most a lot may have")
			}
			next = append(next, tag)
		}
		tags[h.ID] = strings.Join(next, ",")
	}
	if err := s.store.BulkSetHoldingTags(ctx, u.ID, ids, tags); err != nil {
		return 0, bulkErr(err)
	}
	return len(ids), nil
}

func (s *Service) bulkMove(ctx context.Context, u db.User, lots []portfolio.Holding, in BulkInput) (int, error) {
	to := strings.TrimSpace(deref(in.ToLocationID))
	on, err := s.moveDate(in.Date)
	if err != nil {
		return 0, err
	}
	note, msg := portfolio.CleanText(in.Note, MaxMoveNote, false)
	if msg != "" {
		return 0, apperr.InvalidField("note", msg)
	}
	ids := make([]string, len(lots))
	for i, h := range lots {
		if !h.PurchaseDate.IsZero() && on.Before(h.PurchaseDate.Time) {
			return 0, apperr.InvalidField("date", "cannot be before the purchase date of holding "+h.ID+" ("+h.PurchaseDate.String()+")")
		}
		if h.LocationID == to {
			return 0, apperr.InvalidField("to_location_id", "is where holding "+h.ID+" already is")
		}
		ids[i] = h.ID
	}
	if _, err := s.store.BulkMoveHoldings(ctx, u.ID, ids, sql.NullString{String: to, Valid: to != ""}, on, note); err != nil {
		return 0, bulkErr(err)
	}
	return len(ids), nil
}

func bulkErr(err error) error {
	var miss *db.BulkMissingError
	switch {
	case errors.As(err, &miss):
		return apperr.New(apperr.NotFound, "holding %s not found: nothing was changed", miss.ID)
	case errors.Is(err, db.ErrNoSuchLocation):
		return apperr.InvalidField("to_location_id", "is not one of your locations")
	}
	return err
}
