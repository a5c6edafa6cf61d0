package account

import (
	"strings"
	"testing"
)

func TestPasswordHashing(t *testing.T) {
	h, err := HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash does not use the argon2id baseline: %q", h)
	}
	if !CheckPassword(h, "correct horse battery") {
		t.Fatal("right password refused")
	}
	for _, bad := range []struct{ hash, pw string }{
		{h, "correct horse batterx"},
		{h, ""},
		{"garbage", "x"},
		{"", ""},
		{"$argon2id$v=19$m=19456,t=2,p=1$!!!$!!!", "x"},
		{"$bcrypt$v=19$m=19456,t=2,p=1$c2FsdA$a2V5", "x"},
		{strings.Replace(h, "m=19456", "m=x", 1), "correct horse battery"},
	} {
		if CheckPassword(bad.hash, bad.pw) {
			t.Errorf("CheckPassword(%q, %q) = true", bad.hash, bad.pw)
		}
	}
	h2, _ := HashPassword("correct horse battery")
	if h == h2 {
		t.Fatal("salt not random")
	}
}

func TestValidateSignup(t *testing.T) {
	long := strings.Repeat("é1", MaxPasswordLen/2) + "x"
	for _, tc := range []struct {
		name, email, pw string
		wantEmail       string
		wantFields      []string
	}{
		{"valid", "Ann@Example.com ", "correct horse battery", "ann@example.com", nil},
		{"ten characters is enough", "ann@example.com", "kx7-vault-q", "ann@example.com", nil},
		{"nine characters is not", "ann@example.com", "012345678", "ann@example.com", []string{"password"}},
		{"characters, not bytes", "ann@example.com", "ééééééééé", "ann@example.com", []string{"password"}},
		{"longest password", "ann@example.com", strings.Repeat("é1", MaxPasswordLen/2), "ann@example.com", nil},
		{"too long", "ann@example.com", long, "ann@example.com", []string{"password"}},
		{"no at", "ann.example.com", "correct horse battery", "ann.example.com", []string{"email"}},
		{"no dot in domain", "ann@localhost", "correct horse battery", "ann@localhost", []string{"email"}},
		{"display name", "Ann <ann@example.com>", "correct horse battery", "ann <ann@example.com>", []string{"email"}},
		{"empty", "", "", "", []string{"email", "password"}},
		{"too long email", strings.Repeat("a", 250) + "@example.com", "correct horse battery", strings.Repeat("a", 250) + "@example.com", []string{"email"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			email, errs := ValidateSignup(tc.email, tc.pw)
			if email != tc.wantEmail {
				t.Errorf("email = %q, want %q", email, tc.wantEmail)
			}
			var got []string
			for _, e := range errs {
				if e.Message == "" {
					t.Errorf("field %s has no message", e.Field)
				}
				got = append(got, e.Field)
			}
			if strings.Join(got, ",") != strings.Join(tc.wantFields, ",") {
				t.Fatalf("bad fields = %v, want %v (%v)", got, tc.wantFields, errs)
			}
		})
	}
	if _, errs := ValidateSignup("ann@example.com", "short"); len(errs) != 1 || errs[0].Message != "must be at least 10 characters" {
		t.Fatalf("short password message: %v", errs)
	}
}

// TestValidatePassword: ten or more characters that are not all whitespace or one character,
// and not on the common list (in any letter case).
func TestValidatePassword(t *testing.T) {
	for _, c := range []struct {
		pw, msg string
	}{
		{"correct horse battery", ""},
		{"  a        ", ""},
		{"Tr0ub4dor&3x", ""},
		{"short", "must be at least 10 characters"},
		{strings.Repeat(" ", 10), "must not be only spaces"},
		{"\t\n \u00a0      \u3000", "must not be only spaces"},
		{strings.Repeat("a", 12), "must not be one character repeated"},
		{strings.Repeat("é", 10), "must not be one character repeated"},
		{"0123456789", "is one of the 10,000 most common passwords; choose something less guessable"},
		{"Password123", "is one of the 10,000 most common passwords; choose something less guessable"},
		{"QWERTYUIOP", "is one of the 10,000 most common passwords; choose something less guessable"},
		{"1q2w3e4r5t", "is one of the 10,000 most common passwords; choose something less guessable"},
		{"sunshine2024", "is one of the 10,000 most common passwords; choose something less guessable"},
		{"p@ssw0rd123", "is one of the 10,000 most common passwords; choose something less guessable"},
		{strings.Repeat("ab", 129), "must be at most 256 characters"},
	} {
		err := ValidatePassword(c.pw)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.msg {
			t.Errorf("ValidatePassword(%q) = %q, want %q", c.pw, got, c.msg)
		}
	}
}
