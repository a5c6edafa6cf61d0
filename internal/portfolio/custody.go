package portfolio

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"unicode"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
)

// Where a lot is kept and its tags (issue 28): the custody fields a holding body or form may
// carry beside HoldingFields. The locations themselves are the custody area's; the portfolio
// reads and writes a lot's place and tags through the store, and lists its transfers.

// Transfer is one recorded move of a lot between places.
type Transfer = db.Transfer

// Tag limits.
const (
	MaxTags   = 20
	MaxTagLen = 40
)

// CustodyFields are the custody fields a JSON holding body may carry beside HoldingFields
// (CSV files and the import keep to HoldingFields).
var CustodyFields = []string{"location_id", "tags"}

// CustodyInput is the location_id and tags of a holding body or form, when present.
type CustodyInput struct {
	LocationSet bool
	LocationID  string // "" unassigned
	TagsSet     bool
	Tags        []string
}

// splitCustodyJSON takes location_id and tags out of a JSON holding body, returning the rest
// for the strict holding parser.
func splitCustodyJSON(body []byte) ([]byte, CustodyInput, error) {
	var c CustodyInput
	if len(body) > MaxHoldingBody {
		return body, c, nil // the holding parser answers TooLarge
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var raw map[string]json.RawMessage
	if err := dec.Decode(&raw); err != nil || raw == nil || dec.More() {
		return body, c, nil // the holding parser names the problem
	}
	_, hasLoc := raw["location_id"]
	_, hasTags := raw["tags"]
	if !hasLoc && !hasTags {
		return body, c, nil
	}
	if v, ok := raw["location_id"]; ok {
		c.LocationSet = true
		if s := string(bytes.TrimSpace(v)); s != "null" {
			if err := json.Unmarshal(v, &c.LocationID); err != nil {
				return body, c, apperr.InvalidField("location_id", "must be a location id (string) or null")
			}
		}
		delete(raw, "location_id")
	}
	if v, ok := raw["tags"]; ok {
		c.TagsSet = true
		var tags []string
		if s := string(bytes.TrimSpace(v)); s != "null" {
			if err := json.Unmarshal(v, &tags); err != nil {
				return body, c, apperr.InvalidField("tags", "must be an array of strings")
			}
		}
		t, msg := CleanTags(tags)
		if msg != "" {
			return body, c, apperr.InvalidField("tags", msg)
		}
		c.Tags = t
		delete(raw, "tags")
	}
	rest, err := json.Marshal(raw)
	if err != nil {
		return body, c, apperr.InvalidField("body", "must be a JSON object")
	}
	return rest, c, nil
}

// CustodyFromForm reads a form's location_id select and tags text (comma separated).
func CustodyFromForm(get func(string) string) (CustodyInput, error) {
	c := CustodyInput{LocationSet: true, LocationID: strings.TrimSpace(get("location_id")), TagsSet: true}
	var tags []string
	for _, t := range strings.Split(get("tags"), ",") {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	t, msg := CleanTags(tags)
	if msg != "" {
		return c, apperr.InvalidField("tags", msg)
	}
	c.Tags = t
	return c, nil
}

// CleanTags trims, lower-cases and de-duplicates tags, keeping their order; a tag is letters,
// digits, spaces and - . / (no commas: the store joins them with commas).
func CleanTags(in []string) ([]string, string) {
	out := []string{}
	seen := map[string]bool{}
	for _, t := range in {
		t = strings.ToLower(strings.Join(strings.Fields(t), " "))
		if t == "" || seen[t] {
			continue
		}
		if len([]rune(t)) > MaxTagLen {
			return nil, "each tag is at most 40 characters"
		}
		for _, r := range t {
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune(" -./", r) {
				return nil, "tags hold letters, digits, spaces and - . / only"
			}
		}
		seen[t] = true
		out = append(out, t)
	}
	if len(out) > MaxTags {
		return nil, "at most 20 tags"
	}
	return out, ""
}

// SplitTags reads the stored, comma-joined tags.
func SplitTags(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, ",")
}

// checkLocation answers 422 naming location_id when it is not one of the member's.
func (s *Service) checkLocation(ctx context.Context, u db.User, c CustodyInput) error {
	if !c.LocationSet || c.LocationID == "" {
		return nil
	}
	if _, err := s.store.LocationByID(ctx, u.ID, c.LocationID); err != nil {
		if errors.Is(err, db.ErrNotFound) {
			return apperr.InvalidField("location_id", "is not one of your locations")
		}
		return err
	}
	return nil
}

func nullID(id string) sql.NullString { return sql.NullString{String: id, Valid: id != ""} }

// placeNew puts a new lot where its input says, with its tags.
func (s *Service) placeNew(ctx context.Context, u db.User, h *Holding, c CustodyInput) error {
	if !c.LocationSet && !c.TagsSet {
		return nil
	}
	var tags *string
	if c.TagsSet {
		j := strings.Join(c.Tags, ",")
		tags = &j
	}
	if err := s.store.PlaceHolding(ctx, u.ID, h.ID, nullID(c.LocationID), tags); err != nil {
		return err
	}
	h.LocationID, h.Tags = c.LocationID, SplitTags(derefOr(tags, strings.Join(h.Tags, ",")))
	return nil
}

func derefOr(p *string, def string) string {
	if p == nil {
		return def
	}
	return *p
}

// applyCustody writes an update's custody fields: a changed place is a transfer dated today.
func (s *Service) applyCustody(ctx context.Context, u db.User, id, curLoc string, c CustodyInput) error {
	if c.TagsSet {
		if err := s.store.SetHoldingTags(ctx, u.ID, id, strings.Join(c.Tags, ",")); err != nil {
			return holdingErr(err)
		}
	}
	if c.LocationSet && c.LocationID != curLoc {
		if _, err := s.store.MoveHolding(ctx, u.ID, id, nullID(c.LocationID), db.NewDate(s.now()), ""); err != nil {
			return holdingErr(err)
		}
	}
	return nil
}

// Locations lists the member's storage locations (for the holding form and the ledger).
func (s *Service) Locations(ctx context.Context, u db.User) ([]db.Location, error) {
	return s.store.LocationsByUser(ctx, u.ID)
}

// Transfers lists the member's lot's moves, oldest first.
func (s *Service) Transfers(ctx context.Context, u db.User, id string) ([]Transfer, error) {
	return s.store.TransfersOf(ctx, u.ID, id)
}
