package kit

import (
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/job"
)

// Auth is what a route demands of the caller. The same levels guard both trees: /v1 routes
// authenticate by bearer key, pages by session; web enforces the level before the handler runs.
type Auth int

// Authentication levels of routes.
const (
	// AuthNone routes are public; a valid key or session, when present, is still recognised.
	AuthNone Auth = iota
	// AuthMember routes need any signed-in member (a valid API key, or a session on pages).
	AuthMember
	// AuthGold routes need a gold member.
	AuthGold
	// AuthAdmin routes need an administrator.
	AuthAdmin
)

// Schema is a JSON Schema fragment as OpenAPI 3.0 writes it.
type Schema = map[string]any

// Param describes one query or path parameter.
type Param struct {
	Name        string
	In          string // "query" or "path"
	Description string
	Required    bool
	Schema      Schema
	Example     string
}

// Response describes one documented response.
type Response struct {
	Status      int
	Description string
	Schema      Schema // nil for no body
	ContentType string // default application/json
	// Contents documents a response served in several media types (media type → schema);
	// it replaces Schema and ContentType when set.
	Contents map[string]Schema
}

// The responses that many routes document with the same meaning, each said once here.

// BodyTooLarge is the 413 of a route that reads at most limit bytes of body (a whole number
// of KiB), named from the limit the route enforces.
func BodyTooLarge(limit int) Response {
	return Response{Status: 413, Description: "Body over " + strconv.Itoa(limit>>10) + " KiB."}
}

// ProblemResponse is an error documented with the problem+json schema inline, for an answer
// whose errors a client is expected to read field by field.
func ProblemResponse(status int, description string) Response {
	return Response{Status: status, Description: description, Schema: ProblemSchema(), ContentType: "application/problem+json"}
}

// NotYourUserID is the 403 of a route whose body may claim a userId: only the caller's own.
func NotYourUserID() Response {
	return Response{Status: 403, Description: "userId is not your own id."}
}

// NotYours is the 404 of a route naming one of the member's own things (a holding, a
// location): there is none with that id, or it is another member's, and the answer does not
// say which.
func NotYours(thing string) Response {
	return Response{Status: 404, Description: "No such " + thing + " of yours."}
}

// Deleted is the 204 of a route that deletes what it names.
func Deleted() Response { return Response{Status: 204, Description: "Deleted."} }

// BadQuery is the 400 of a read whose query parameters are bounded numbers or enumerations.
func BadQuery() Response {
	return Response{Status: 400, Description: "A parameter is out of range or not one of its values."}
}

// APIRoute is one /v1 route with everything needed to serve and document it.
type APIRoute struct {
	Method      string
	Path        string // Fiber syntax, e.g. /v1/holdings/:id
	Auth        Auth
	Handler     fiber.Handler
	OperationID string
	Summary     string
	Description string
	Tag         string
	Params      []Param
	Body        Schema
	BodyTypes   []string // request content types; default application/json when Body is set
	// BodyByType documents a request body accepted in several shapes (media type → schema);
	// it replaces Body and BodyTypes when set.
	BodyByType map[string]Schema
	Responses  []Response
	Example    string // an example request line for llms.txt and docs, e.g. "GET /v1/prices"
	// MaxBody is the largest request body the route reads, in bytes; 0 means DefaultMaxBody.
	// The server refuses a longer body with 413 while reading it, before any handler runs.
	MaxBody int

	// BodyOptional documents the body as optional (a route that also works without one).
	BodyOptional bool
	// SignedBody marks a body that a third party signed and the handler verifies as raw
	// bytes (a payment webhook): the text rule for request fields (no control characters)
	// does not apply to it.
	SignedBody bool
}

// DefaultMaxBody is the request body limit of every route that sets no MaxBody: forms and
// JSON are small, and a larger limit only lets a stranger make the server buffer more.
const DefaultMaxBody = 64 << 10

// PageRoute is one browser route. Routes above AuthNone send visitors to the sign-in page;
// AuthGold routes show free members the way to membership; AuthAdmin routes are 404 to others.
type PageRoute struct {
	Method  string
	Path    string
	Handler fiber.Handler
	Auth    Auth
	// MaxBody is the largest request body the route reads, in bytes; 0 means DefaultMaxBody.
	MaxBody int
	// Costly marks a route whose request may cost a call to a model, Stripe or the OCR tools:
	// web limits it per member (HTTPConfig.CostlyPerMember), as /v1 limits each key.
	Costly bool
}

// PagesFor gives every route of a group of pages the same auth, said once for the group. A
// route of the group that names another level is a mistake in the table: it panics when the
// table is built, at start-up.
func PagesFor(auth Auth, routes []PageRoute) []PageRoute {
	for i := range routes {
		if routes[i].Auth != AuthNone && routes[i].Auth != auth {
			panic("page route " + routes[i].Method + " " + routes[i].Path + " names its own auth inside a group")
		}
		routes[i].Auth = auth
	}
	return routes
}

// Job is a named background loop (internal/job): the services list theirs, the composition
// root collects them, and the server's one job runner starts each.
type Job = job.Job

func MetalSchema() Schema {
	return Schema{"type": "string", "enum": []string{"gold", "silver", "platinum", "palladium"}}
}
