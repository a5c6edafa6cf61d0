package kit

import (
	"bytes"
	"errors"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
)

// uploadForm is a multipart form holding one file field, its file on disk (maxMemory 1).
func uploadForm(t *testing.T, content string) (*multipart.Form, *multipart.FileHeader) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	fw, err := w.CreateFormFile("file", "receipt.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fw.Write([]byte(content)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	form, err := multipart.NewReader(&buf, w.Boundary()).ReadForm(1)
	if err != nil {
		t.Fatal(err)
	}
	return form, form.File["file"][0]
}

// A file that cannot be read is the client's 400 naming the field, not a 500.
func TestReadUploadFailureNamesTheField(t *testing.T) {
	form, fh := uploadForm(t, strings.Repeat("x", 4096))
	if err := form.RemoveAll(); err != nil { // the stored file is gone: Open fails
		t.Fatal(err)
	}
	_, err := ReadUpload(fh, "file", 1<<20)
	var p *Problem
	if !errors.As(err, &p) {
		t.Fatalf("want a problem, got %v", err)
	}
	if p.Status != http.StatusBadRequest || len(p.Errors) != 1 || p.Errors[0].Field != "file" {
		t.Fatalf("want 400 naming file, got %d %+v", p.Status, p.Errors)
	}
	if AsProblem(err).Status >= 500 {
		t.Fatalf("a read failure must not be a server error: %+v", AsProblem(err))
	}
}

// ReadUpload reads one byte past the limit, so the caller can tell a file over it.
func TestReadUploadReadsPastTheLimit(t *testing.T) {
	form, fh := uploadForm(t, "0123456789")
	defer form.RemoveAll()
	data, err := ReadUpload(fh, "file", 4)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "01234" {
		t.Fatalf("got %q, want the limit and one byte more", data)
	}
}
