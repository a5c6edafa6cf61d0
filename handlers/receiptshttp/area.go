package receiptshttp

import "github.com/ouncehq/ounce/handlers/kit"

// *Handlers is this area's one value of the kit.Area contract: internal/app builds it with New
// and lists it once; handlers.New assembles every area's routes, schemas and tools.
var _ kit.Area = (*Handlers)(nil)
