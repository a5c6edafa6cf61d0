package account

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/ouncehq/ounce/internal/apperr"
)

// Names people sign comments with must not pass for the site's staff or for another member's
// default name, and no text may carry the Unicode controls that reverse how it is displayed
// (U+202E makes "gnp.exe" read as "exe.png").

// IsBidiControl reports whether r is a bidirectional formatting character: the embeddings and
// overrides U+202A–U+202E, the isolates U+2066–U+2069, the marks U+200E/U+200F and the Arabic
// letter mark U+061C.
func IsBidiControl(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0x200E || r == 0x200F || r == 0x061C
}

// HasBidiControl reports whether s holds any bidirectional formatting character.
func HasBidiControl(s string) bool { return strings.IndexFunc(s, IsBidiControl) >= 0 }

// ErrBidi is the refusal of a text field holding a bidirectional control (422 naming it).
func ErrBidi(field string) *apperr.Error {
	msg := "must not contain text-direction control characters (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C)"
	return &apperr.Error{Kind: apperr.Unprocessable, Msg: field + ": " + msg, Fields: []apperr.FieldError{{Field: field, Message: msg}}}
}

// reservedNames are words only the site's own staff would sign with, compared after case,
// separators and lookalike characters are folded away.
var reservedNames = map[string]bool{
	"admin": true, "admins": true, "administrator": true, "administrators": true, "sysadmin": true, "root": true, "superuser": true,
	"mod": true, "mods": true, "moderator": true, "moderators": true, "staff": true, "support": true, "helpdesk": true,
	"ounce": true, "ouncehq": true, "system": true, "official": true, "security": true, "webmaster": true, "postmaster": true,
	"member": true,
}

// reservedInside are staff words refused anywhere in the folded name ("TheRealAdministrator",
// "ounce_support"); short words such as "admin" are only refused as a word of their own,
// since they hide inside ordinary ones ("badminton").
var reservedInside = []string{"administrator", "moderator", "sysadmin", "ounceteam", "ouncestaff", "ouncesupport", "ounceadmin", "ounceofficial", "staffmember"}

// lookalikes fold characters that read as Latin letters to them: digits and symbols people
// substitute, and Cyrillic and Greek letters drawn like Latin ones.
var lookalikes = map[rune]rune{
	'0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', '$': 's', '|': 'l', '!': 'i',
	'а': 'a', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'у': 'y', 'х': 'x', 'і': 'i', 'ј': 'j', 'ѕ': 's', 'ԁ': 'd', 'м': 'm', 'т': 't', 'н': 'h', 'к': 'k', 'в': 'b',
	'α': 'a', 'ε': 'e', 'ο': 'o', 'ρ': 'p', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'τ': 't', 'υ': 'u', 'μ': 'm',
	'ı': 'i', 'ℓ': 'l',
}

// invisible are characters that show nothing and could split a word unseen.
func invisible(r rune) bool {
	return r == 0x200B || r == 0x200C || r == 0x200D || r == 0x2060 || r == 0xFEFF || r == 0x00AD || IsBidiControl(r)
}

// foldName lowercases, maps lookalikes and splits into words on anything but letters.
func foldName(name string) []string {
	var words []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	for _, r := range name {
		if invisible(r) {
			continue
		}
		r = unicode.ToLower(r)
		if l, ok := lookalikes[r]; ok {
			r = l
		}
		if unicode.IsLetter(r) {
			cur.WriteRune(r)
		} else {
			flush()
		}
	}
	flush()
	return words
}

// defaultTagPattern is the shape of a member's default name, "Member 8F3A": the word and four
// letters or digits.
var defaultTagPattern = regexp.MustCompile(`(?i)^m[e3]mb[e3]r[^\p{L}\p{N}]*[\p{L}\p{N}]{4}$`)

// reservedName says why a display name may not be used, or "" when it may.
func reservedName(name string) string {
	var visible strings.Builder
	for _, r := range name {
		if !invisible(r) {
			if l, ok := lookalikes[unicode.ToLower(r)]; ok && unicode.IsLetter(l) && !unicode.IsDigit(r) {
				r = l
			}
			visible.WriteRune(r)
		}
	}
	if defaultTagPattern.MatchString(strings.TrimSpace(visible.String())) {
		return "looks like another member's default name; choose a name of your own"
	}
	words := foldName(name)
	joined := strings.Join(words, "")
	if reservedNames[joined] {
		return "uses a word reserved for the site's staff; choose another name"
	}
	for _, w := range words {
		if reservedNames[w] && w != "member" {
			return "uses a word reserved for the site's staff; choose another name"
		}
	}
	for _, w := range reservedInside {
		if strings.Contains(joined, w) {
			return "uses a word reserved for the site's staff; choose another name"
		}
	}
	return ""
}
