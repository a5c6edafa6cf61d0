package kit

import (
	"io"
	"mime/multipart"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// UploadedFile reads the multipart file field of a request, at most limit+1 bytes, so a file
// over limit can be told from one at it, and the file's name. Without the field it is the
// 400 naming field with missing as the reason; a file that declares more than limit bytes is
// tooLarge (when not nil: else the caller judges the bytes read); one that cannot be opened
// or read is the 400 naming field, never a 500.
func UploadedFile(c *fiber.Ctx, field, missing string, limit int64, tooLarge error) (data []byte, name string, err error) {
	fh, err := c.FormFile(field)
	if err != nil {
		return nil, "", Invalid(field, missing)
	}
	if tooLarge != nil && fh.Size > limit {
		return nil, "", tooLarge
	}
	data, err = ReadUpload(fh, field, limit)
	return data, strings.Clone(fh.Filename), err
}

// ReadUpload reads an uploaded file, at most limit+1 bytes; one that cannot be opened or
// read is the 400 naming field.
func ReadUpload(fh *multipart.FileHeader, field string, limit int64) ([]byte, error) {
	f, err := fh.Open()
	if err != nil {
		return nil, Invalid(field, "could not be read")
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, Invalid(field, "could not be read")
	}
	return data, nil
}
