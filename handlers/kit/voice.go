package kit

import (
	"regexp"
	"strings"

	"github.com/ouncehq/ounce/internal/apperr"
)

// Pages speak to people in one voice: a sentence that says what to do ("Enter a quantity
// between 1 and 1000000."), where the API names the field and the rule ("quantity: must be
// between 1 and 1000000"). The services write their rules once, in the API's words;
// FieldSentence turns them into the page's, so no page words its errors by hand.

// fieldLabel is how a page names a field: the noun with its article, and whether the person
// types it (Enter) or picks it from a list (Choose).
type fieldLabel struct {
	noun   string
	choose bool
	// plural names what a count field counts ("dimes"), so a bound reads "Enter 0 or more dimes".
	plural string
}

// charLimit is a length rule: "must be at most 1,000 characters (this has 1,204)".
var charLimit = regexp.MustCompile(`^must be at most (\S+) characters(.*)$`)

var fieldLabels = map[string]fieldLabel{
	"metal":            {"a metal", true, ""},
	"quantity":         {"a quantity", false, ""},
	"weight_oz":        {"a weight in troy ounces", false, ""},
	"weight":           {"a weight", false, ""},
	"purchase_price":   {"a price per unit", false, ""},
	"price_per_unit":   {"a price per unit", false, ""},
	"price":            {"a price", false, ""},
	"fees":             {"the fees", false, ""},
	"purchase_date":    {"a purchase date", false, ""},
	"sold_on":          {"a sale date", false, ""},
	"date":             {"a date", false, ""},
	"product_name":     {"a product name", false, ""},
	"dealer":           {"a dealer", false, ""},
	"notes":            {"notes", false, ""},
	"email":            {"an email address", false, ""},
	"password":         {"a password", false, ""},
	"new_password":     {"a new password", false, ""},
	"current_password": {"your current password", false, ""},
	"display_name":     {"a display name", false, ""},
	"time_zone":        {"a time zone", true, ""},
	"body":             {"a comment", false, ""},
	"message":          {"a message", false, ""},
	"target":           {"a target price", false, ""},
	"face":             {"a face value", false, ""},
	"face_90":          {"a face value", false, ""},
	"face_40":          {"a face value", false, ""},
	"basis":            {"a coin condition", true, ""},
	"plan":             {"a plan", true, ""},
	"range":            {"a range", true, ""},
	"direction":        {"a direction", true, ""},
	"file":             {"a file", false, ""},
	"confirm":          {"the confirmation", false, ""},
	"dimes":            {"the number of dimes", false, "dimes"},
	"quarters":         {"the number of quarters", false, "quarters"},
	"half_dollars":     {"the number of half dollars", false, "half dollars"},
	"kennedy_40":       {"the number of 40% Kennedy halves", false, "40% Kennedy halves"},
	"dollars":          {"the number of silver dollars", false, "silver dollars"},
	"war_nickels":      {"the number of war nickels", false, "war nickels"},
	"gold":             {"a gold price", false, ""},
	"silver":           {"a silver price", false, ""},
	"platinum":         {"a platinum price", false, ""},
	"palladium":        {"a palladium price", false, ""},
}

// FieldSentence is a field's rule as a page says it: what to do, as a sentence.
func FieldSentence(field, message string) string {
	l, ok := fieldLabels[field]
	if !ok {
		l = fieldLabel{noun: "the " + strings.ReplaceAll(field, "_", " ")}
	}
	verb := "Enter "
	if l.choose {
		verb = "Choose "
	}
	m := strings.TrimSpace(message)
	switch {
	case m == "is required" || m == "must not be empty":
		return apperr.Sentence(verb + l.noun)
	case strings.HasPrefix(m, "is required: "):
		return apperr.Sentence(verb + strings.TrimPrefix(m, "is required: "))
	case m == "must be a number" || m == "must be a whole number":
		return apperr.Sentence(verb + l.noun + " as " + strings.TrimPrefix(m, "must be "))
	case m == "must be an integer":
		return apperr.Sentence(verb + l.noun + " as a whole number")
	case m == "cannot be negative" && l.plural != "":
		return apperr.Sentence(verb + "0 or more " + l.plural)
	case strings.HasPrefix(m, "must be at most ") && l.plural != "":
		return apperr.Sentence(verb + "at most " + strings.TrimPrefix(m, "must be at most ") + " " + l.plural)
	case strings.HasPrefix(m, "must be between ") && l.plural != "":
		return apperr.Sentence(verb + strings.TrimPrefix(m, "must be ") + " " + l.plural)
	case m == "cannot be negative":
		return apperr.Sentence(verb + l.noun + " of 0 or more")
	case m == "cannot be in the future" || m == "must not be in the future":
		return apperr.Sentence(verb + l.noun + " that is not in the future")
	case strings.HasPrefix(m, "must be between "), strings.HasPrefix(m, "must be greater than "),
		strings.HasPrefix(m, "must be less than "):
		return apperr.Sentence(verb + l.noun + " " + strings.TrimPrefix(m, "must be "))
	case charLimit.MatchString(m):
		g := charLimit.FindStringSubmatch(m)
		return apperr.Sentence("Keep " + the(l.noun) + " to " + g[1] + " characters or fewer" + g[2])
	case strings.HasPrefix(m, "must be at most "):
		return apperr.Sentence(verb + l.noun + " of at most " + strings.TrimPrefix(m, "must be at most "))
	case strings.HasPrefix(m, "must be ") && strings.HasSuffix(m, " or later"):
		return apperr.Sentence(verb + l.noun + " of " + strings.TrimPrefix(m, "must be "))
	case strings.HasPrefix(m, "has more than ") && strings.HasSuffix(m, " decimal places"):
		return apperr.Sentence(verb + l.noun + " with at most " + strings.TrimSuffix(strings.TrimPrefix(m, "has more than "), " decimal places") + " decimal places")
	case strings.HasPrefix(m, "must be one of "):
		// Pages accept any letter case, so the API's "(lowercase)" says nothing here.
		return apperr.Sentence("Choose one of " + strings.TrimSuffix(strings.TrimPrefix(m, "must be one of "), " (lowercase)"))
	case l.choose && strings.HasPrefix(m, "must be "):
		return apperr.Sentence("Choose " + strings.TrimPrefix(m, "must be "))
	case strings.HasPrefix(m, "must be a "), strings.HasPrefix(m, "must be an "):
		return apperr.Sentence(verb + strings.TrimPrefix(m, "must be "))
	case strings.HasPrefix(m, "enter "), strings.HasPrefix(m, "choose "), strings.HasPrefix(m, "type "),
		strings.HasPrefix(m, "that "):
		// Already said to the person.
		return apperr.Sentence(m)
	}
	noun := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(l.noun, "a "), "an "), "the ")
	return apperr.Sentence(noun + " " + m)
}

// ErrorSentence is an error as a page shows it on its own (a toast, a form's banner): the
// first field's rule in the page's voice when the error names fields, else its message as a
// sentence.
func ErrorSentence(p *Problem) string {
	if len(p.Errors) > 0 && p.Errors[0].Field != "" {
		return FieldSentence(p.Errors[0].Field, p.Errors[0].Message)
	}
	return apperr.Sentence(p.Detail)
}

// the is a noun phrase with the definite article: "a product name" → "the product name".
func the(noun string) string {
	for _, a := range []string{"a ", "an "} {
		if strings.HasPrefix(noun, a) {
			return "the " + strings.TrimPrefix(noun, a)
		}
	}
	return noun
}
