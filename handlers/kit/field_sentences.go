package kit

import "github.com/ouncehq/ounce/internal/apperr"

// FieldSentences is a form's errors as its page shows them: for each field a use case refused,
// the page's sentence for the rule (FieldSentence), keyed by the field's name.
func FieldSentences(errs []apperr.FieldError) map[string]string {
	out := make(map[string]string, len(errs))
	for _, e := range errs {
		out[e.Field] = FieldSentence(e.Field, e.Message)
	}
	return out
}
