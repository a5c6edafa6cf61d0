package custodyhttp

import (
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/custody"
)

// DocumentJSON is the wire form of a document attached to a lot.
type DocumentJSON struct {
	ID          string    `json:"id"`
	HoldingID   string    `json:"holding_id"`
	Name        string    `json:"name" doc:"The uploaded file's name, cleaned, with the extension of its type."`
	ContentType string    `json:"content_type" doc:"image/jpeg, image/png or application/pdf, read from the bytes."`
	Size        int64     `json:"size" doc:"Bytes stored (an image as re-encoded without its metadata)."`
	CreatedAt   time.Time `json:"created_at"`
}

// DocumentResultJSON is the answer of an upload.
type DocumentResultJSON struct {
	Document DocumentJSON `json:"document"`
}

// DocumentsJSON lists a lot's documents.
type DocumentsJSON struct {
	Documents []DocumentJSON `json:"documents"`
}

// DocumentToJSON renders a document.
func DocumentToJSON(d custody.Document) DocumentJSON {
	return DocumentJSON{ID: d.ID, HoldingID: d.HoldingID, Name: d.Name, ContentType: d.ContentType, Size: d.Size, CreatedAt: d.CreatedAt.UTC()}
}

// documentMaxBody is a 10 MB file with room for the multipart envelope.
const documentMaxBody = custody.MaxDocumentBytes + 64<<10

// APIUpload answers POST /v1/holdings/{id}/documents.
func (h *Handlers) APIUpload(c *fiber.Ctx) error {
	return kit.MemberJSON(c, http.StatusCreated, func(u account.User) (custody.Document, error) {
		body, name, err := kit.UploadedFile(c, "file", "is required: send the photo or PDF in the multipart field file", custody.MaxDocumentBytes, nil)
		if err != nil {
			return custody.Document{}, err
		}
		return h.custody.Upload(h.Ctx(c), u, strings.Clone(c.Params("id")), name, body)
	}, func(d custody.Document) DocumentResultJSON {
		c.Set(fiber.HeaderLocation, "/v1/documents/"+d.ID)
		return DocumentResultJSON{Document: DocumentToJSON(d)}
	})
}

// APIDocuments answers GET /v1/holdings/{id}/documents.
func (h *Handlers) APIDocuments(c *fiber.Ctx) error {
	return kit.MemberJSON(c, http.StatusOK, func(u account.User) ([]custody.Document, error) {
		return h.custody.Documents(h.Ctx(c), u, c.Params("id"))
	}, func(ds []custody.Document) DocumentsJSON {
		return DocumentsJSON{Documents: kit.MapSlice(ds, DocumentToJSON)}
	})
}

// APIDocument answers GET /v1/documents/{id}: the file, to its owner only, never cached.
func (h *Handlers) APIDocument(c *fiber.Ctx) error {
	u, err := kit.RequireUser(c)
	if err != nil {
		return err
	}
	d, body, err := h.custody.DocumentFile(h.Ctx(c), u, c.Params("id"))
	if err != nil {
		return err
	}
	disp := "inline"
	if d.ContentType == "application/pdf" {
		disp = "attachment" // a PDF opens in the viewer the member chooses, never in our origin
	}
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set(fiber.HeaderContentLength, strconv.Itoa(len(body)))
	return kit.SendDownload(c, d.ContentType, mime.FormatMediaType(disp, map[string]string{"filename": d.Name}), body)
}

// APIDeleteDocument answers DELETE /v1/documents/{id}.
func (h *Handlers) APIDeleteDocument(c *fiber.Ctx) error {
	return kit.MemberNoContent(c, func(u account.User) error {
		return h.custody.DeleteDocument(h.Ctx(c), u, c.Params("id"))
	})
}

func (h *Handlers) documentRoutes() []kit.APIRoute {
	holdID := kit.PathParam("id", "Holding id.", 64, "")
	docID := kit.PathParam("id", "Document id.", 64, "")
	binary := kit.Schema{"type": "string", "format": "binary"}
	return []kit.APIRoute{
		{Method: "POST", Path: "/v1/holdings/:id/documents", Auth: kit.AuthGold, Handler: h.APIUpload, OperationID: "uploadDocument", Tag: "Portfolio",
			Summary: "Attach a photo or PDF (a receipt, a certificate, a photo of the coin) to a lot",
			Description: "The type is read from the bytes: JPEG, PNG or PDF (WebP, HEIC, archives and anything else: 422). Images are decoded and encoded again, so what is kept holds the pixels only: no EXIF (GPS position, camera serial), comments or appended bytes. A file that is two formats at once (a polyglot), a PDF that runs code, an image over 40 megapixels or that would expand over 100× when decoded (a decompression bomb): 422. " +
				"At most 10 MB a file and 500 MB for all of a member's documents (413). Documents go with their lot and with the account.",
			Params:     []kit.Param{holdID},
			BodyByType: map[string]kit.Schema{"multipart/form-data": kit.MultipartFile("The photo or PDF, at most 10 MB.")},
			Responses: []kit.Response{{Status: 201, Description: "Attached; Location names the document.", Schema: schema(DocumentResultJSON{})},
				kit.NotYours("holding"), {Status: 413, Description: "The file is over 10 MB, or your documents would take over 500 MB."},
				kit.ProblemResponse(422, "Not a JPEG, PNG or PDF, or a polyglot, bomb, damaged image or scripted PDF: errors names file.")},
			MaxBody: documentMaxBody,
			Example: "POST /v1/holdings/h_abc/documents file=@receipt.pdf"},
		{Method: "GET", Path: "/v1/holdings/:id/documents", Auth: kit.AuthGold, Handler: h.APIDocuments, OperationID: "listDocuments", Tag: "Portfolio",
			Summary: "The documents attached to a lot", Params: []kit.Param{holdID},
			Responses: []kit.Response{{Status: 200, Description: "Oldest first.", Schema: schema(DocumentsJSON{})}, kit.NotYours("holding")},
			Example:   "GET /v1/holdings/h_abc/documents"},
		{Method: "GET", Path: "/v1/documents/:id", Auth: kit.AuthGold, Handler: h.APIDocument, OperationID: "getDocument", Tag: "Portfolio",
			Summary:     "A document's file",
			Description: "Served to its owner only (anyone else: 404), with Cache-Control: no-store; a PDF as an attachment (Content-Disposition: attachment), an image inline.",
			Params:      []kit.Param{docID},
			Responses: []kit.Response{{Status: 200, Description: "The file.", Contents: map[string]kit.Schema{"image/jpeg": binary, "image/png": binary, "application/pdf": binary}},
				kit.NotYours("document")},
			Example: "GET /v1/documents/doc_abc"},
		{Method: "DELETE", Path: "/v1/documents/:id", Auth: kit.AuthGold, Handler: h.APIDeleteDocument, OperationID: "deleteDocument", Tag: "Portfolio",
			Summary: "Delete a document", Params: []kit.Param{docID},
			Responses: []kit.Response{kit.Deleted(), kit.NotYours("document")},
			Example:   "DELETE /v1/documents/doc_abc"},
	}
}
