package kit

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/ouncehq/ounce/internal/account"
)

// OpenAPI schema builders the areas' route tables share. Routes inline them, so each route's
// document stands on its own; areas publish their main shapes as named components.

// NumSchema is a number, with its description when desc is not empty.
func NumSchema(desc string) Schema {
	s := Schema{"type": "number", "format": "double"}
	if desc != "" {
		s["description"] = desc
	}
	return s
}

// NullNumSchema is a number that may be null.
func NullNumSchema(desc string) Schema {
	s := NumSchema(desc)
	s["nullable"] = true
	return s
}

// IntSchema is an integer.
func IntSchema() Schema { return Schema{"type": "integer"} }

// NullDateSchema is a calendar date that may be null.
func NullDateSchema(desc string) Schema {
	return Schema{"type": "string", "format": "date", "nullable": true, "description": desc}
}

// ClosedObject is Object that admits no other properties.
func ClosedObject(props Schema) Schema {
	s := Object(props)
	s["additionalProperties"] = false
	return s
}

// StrSchema is a string.
func StrSchema() Schema { return Schema{"type": "string"} }

func BoolSchema() Schema { return Schema{"type": "boolean"} }

// DateSchema is a calendar date (YYYY-MM-DD).
func DateSchema() Schema { return Schema{"type": "string", "format": "date"} }

// TimeSchema is a moment (RFC 3339).
func TimeSchema() Schema { return Schema{"type": "string", "format": "date-time"} }

// Nullable is s that may also be null.
func Nullable(s Schema) Schema {
	out := Schema{"nullable": true}
	for k, v := range s {
		out[k] = v
	}
	return out
}

// Object builds an object schema whose every listed property is required.
func Object(props Schema) Schema {
	req := make([]string, 0, len(props))
	for k := range props {
		req = append(req, k)
	}
	sort.Strings(req)
	return Schema{"type": "object", "required": req, "properties": props}
}

// MultipartFile is a multipart/form-data body whose one required field, file, is the
// upload desc describes.
func MultipartFile(desc string) Schema {
	return Schema{"type": "object", "required": []string{"file"}, "properties": Schema{"file": Schema{"type": "string", "format": "binary", "description": desc}}}
}

// MetalsSchema is a list of metals.
func MetalsSchema() Schema { return Schema{"type": "array", "items": MetalSchema()} }

// CountSchema is a count (an integer of 0 or more).
func CountSchema() Schema { return Schema{"type": "integer", "minimum": 0} }

func ProblemSchema() Schema {
	return Schema{"type": "object", "required": []string{"type", "title", "status"}, "properties": Schema{
		"type":   Schema{"type": "string", "description": "/problems/<slug>: invalid-parameter, unauthorized, membership-required, forbidden, not-found, conflict, rate-limited, unavailable, internal"},
		"title":  Schema{"type": "string"},
		"status": Schema{"type": "integer"},
		"detail": Schema{"type": "string"},
		"errors": Schema{"type": "array", "items": Schema{"type": "object", "required": []string{"message"}, "properties": Schema{
			"field": Schema{"type": "string"}, "row": Schema{"type": "integer"}, "message": Schema{"type": "string"}}}},
	}, "additionalProperties": true}
}

// MCPTool is one tool of the MCP server, described once for the server and the manifest.
// Its arguments are the query parameters (or body fields) of its REST twin, and it calls the
// same use case, so the two cannot disagree.
type MCPTool struct {
	Name        string
	Description string
	Method      string
	Path        string
	// Gold tools are listed and callable only with a Gold member's key.
	Gold bool
	// Schema overrides the input schema derived from the REST route (for body tools).
	Schema Schema
	Call   func(ctx context.Context, args map[string]string, raw json.RawMessage, u *account.User) (any, error)
}

// UserIDClaim is the schema of a body's optional userId: accepted for compatibility, it
// must be the caller's own id (kit.ClaimedUserID checks it).
func UserIDClaim() Schema {
	return Schema{"oneOf": []Schema{{"type": "string", "maxLength": 40}, {"type": "integer"}}, "description": "Optional, for compatibility: must be your own user id."}
}

// UserIDQuery is the query form of the same claim, userId.
func UserIDQuery() Param {
	return Param{Name: "userId", In: "query", Description: "Accepted for compatibility only: when sent it must be your own user id (else 403; 401 without a key); it never identifies anyone by itself.", Schema: Schema{"type": "string", "maxLength": 40}}
}
