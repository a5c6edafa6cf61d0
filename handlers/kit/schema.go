package kit

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/ouncehq/ounce/db"
)

func NumSchema(desc string) Schema {
	s := Schema{"type": "number"}
	if desc != "" {
		s["description"] = desc
	}
	return s
}

func NullNumSchema(desc string) Schema {
	s := NumSchema(desc)
	s["nullable"] = true
	return s
}

func IntSchema() Schema { return Schema{"type": "integer"} }

func NullDateSchema(desc string) Schema {
	return Schema{"type": "string", "format": "date", "nullable": true, "description": desc}
}

// pfObject is a closed object whose properties are all required.
func ClosedObject(props Schema) Schema {
	req := make([]string, 0, len(props))
	for k := range props {
		req = append(req, k)
	}
	sort.Strings(req)
	return Schema{"type": "object", "required": req, "properties": props, "additionalProperties": false}
}

// Schema helpers for the market-intelligence routes.
func StrSchema() Schema { return Schema{"type": "string"} }

func NumberSchema() Schema { return Schema{"type": "number"} }

func IntegerSchema() Schema { return Schema{"type": "integer"} }

func BoolSchema() Schema { return Schema{"type": "boolean"} }

func DateSchema() Schema { return Schema{"type": "string", "format": "date"} }

func TimeSchema() Schema { return Schema{"type": "string", "format": "date-time"} }

func Nullable(s Schema) Schema {
	out := Schema{"nullable": true}
	for k, v := range s {
		out[k] = v
	}
	return out
}

// intelObject builds an object schema whose every listed property is required.
func Object(props Schema) Schema {
	req := make([]string, 0, len(props))
	for k := range props {
		req = append(req, k)
	}
	sort.Strings(req)
	return Schema{"type": "object", "required": req, "properties": props}
}

func MetalsSchema() Schema { return Schema{"type": "array", "items": MetalSchema()} }

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
	Call   func(ctx context.Context, args map[string]string, raw json.RawMessage, u *db.User) (any, error)
}
