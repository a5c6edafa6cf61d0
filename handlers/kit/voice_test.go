package kit

import "testing"

// TestFieldSentence: the services' rules, in the API's words, read on pages as one voice: a
// sentence that says what to do.
func TestFieldSentence(t *testing.T) {
	for _, c := range []struct{ field, msg, want string }{
		{"quantity", "is required", "Enter a quantity."},
		{"quantity", "must be a whole number", "Enter a quantity as a whole number."},
		{"quantity", "must be between 1 and 1000000", "Enter a quantity between 1 and 1000000."},
		{"weight_oz", "must be greater than 0", "Enter a weight in troy ounces greater than 0."},
		{"purchase_price", "must be a number", "Enter a price per unit as a number."},
		{"fees", "cannot be negative", "Enter the fees of 0 or more."},
		{"purchase_date", "cannot be in the future", "Enter a purchase date that is not in the future."},
		{"purchase_date", "must be 1900 or later", "Enter a purchase date of 1900 or later."},
		{"purchase_date", "must be a date in YYYY-MM-DD form", "Enter a date in YYYY-MM-DD form."},
		{"weight_oz", "has more than 8 decimal places", "Enter a weight in troy ounces with at most 8 decimal places."},
		{"metal", "must be one of gold, silver, platinum, palladium (lowercase)", "Choose one of gold, silver, platinum, palladium."},
		{"metal", "is required: one of gold, silver, platinum, palladium", "Choose one of gold, silver, platinum, palladium."},
		{"basis", "must be uncirculated or circulated", "Choose uncirculated or circulated."},
		{"product_name", "must be at most 200 characters", "Keep the product name to 200 characters or fewer."},
		{"dimes", "must be an integer", "Enter the number of dimes as a whole number."},
		{"war_nickels", "must be between 0 and 100000", "Enter between 0 and 100000 war nickels."},
		{"dimes", "cannot be negative", "Enter 0 or more dimes."},
		{"quarters", "must be at most 100000", "Enter at most 100000 quarters."},
		{"body", "must not be empty", "Enter a comment."},
		{"email", "enter a valid email address", "Enter a valid email address."},
		{"new_password", "must differ from your current password", "New password must differ from your current password."},
		{"body", "must be at most 1000 characters", "Keep the comment to 1000 characters or fewer."},
		{"body", "must be at most 1,000 characters (this has 1,204)", "Keep the comment to 1,000 characters or fewer (this has 1,204)."},
		{"confirm", "type DELETE to confirm", "Type DELETE to confirm."},
		{"current_password", "that is not your current password", "That is not your current password."},
		{"email", "is used by another account", "Email address is used by another account."},
		{"time_zone", "must be a time zone name such as America/New_York", "Choose a time zone name such as America/New_York."},
		{"target", "must be a positive price per ounce", "Enter a positive price per ounce."},
	} {
		if got := FieldSentence(c.field, c.msg); got != c.want {
			t.Errorf("FieldSentence(%q, %q) = %q, want %q", c.field, c.msg, got, c.want)
		}
	}
}

// TestErrorSentence: a problem naming fields speaks through its first field; one without
// fields is its message as a sentence.
func TestErrorSentence(t *testing.T) {
	p := NewProblem(400, ProbInvalid, "quantity: must be between 1 and 1000000", FieldError{Field: "quantity", Message: "must be between 1 and 1000000"})
	if got := ErrorSentence(p); got != "Enter a quantity between 1 and 1000000." {
		t.Errorf("ErrorSentence(field problem) = %q", got)
	}
	if got := ErrorSentence(NewProblem(409, ProbConflict, "holding has recorded sales")); got != "Holding has recorded sales." {
		t.Errorf("ErrorSentence(conflict) = %q", got)
	}
}
