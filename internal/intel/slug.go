package intel

import (
	"fmt"
	"strings"
	"time"
)

// MaxSlugLen bounds slugs so they fit URLs and database keys comfortably.
const MaxSlugLen = 80

// fold spells common accented Latin letters in plain ASCII, so "Zürich" becomes "zurich"
// instead of losing a letter.
var fold = map[rune]string{
	'à': "a", 'á': "a", 'â': "a", 'ã': "a", 'ä': "a", 'å': "a", 'ā': "a", 'ą': "a", 'æ': "ae",
	'ç': "c", 'ć': "c", 'č': "c", 'ď': "d", 'đ': "d", 'ð': "d",
	'è': "e", 'é': "e", 'ê': "e", 'ë': "e", 'ē': "e", 'ę': "e", 'ě': "e",
	'ì': "i", 'í': "i", 'î': "i", 'ï': "i", 'ī': "i", 'ı': "i",
	'ł': "l", 'ñ': "n", 'ń': "n", 'ň': "n",
	'ò': "o", 'ó': "o", 'ô': "o", 'õ': "o", 'ö': "o", 'ø': "o", 'ō': "o", 'ő': "o", 'œ': "oe",
	'ř': "r", 'ś': "s", 'š': "s", 'ş': "s", 'ß': "ss", 'ť': "t", 'ţ': "t", 'þ': "th",
	'ù': "u", 'ú': "u", 'û': "u", 'ü': "u", 'ū': "u", 'ů': "u", 'ű': "u",
	'ý': "y", 'ÿ': "y", 'ź': "z", 'ż': "z", 'ž': "z",
}

// Slugify makes the URL key of an article: the UTC date of publication, then the title in
// lowercase ASCII words joined by hyphens, at most MaxSlugLen bytes in all, e.g.
// "2026-11-22-central-banks-keep-buying". The date prefix keeps recurring headlines ("Daily
// synthesis") apart across days, and the same title on the same day always gives the same
// slug, which is what lets callers detect an article they already stored. A title with no
// usable letters becomes "article". Years outside 0–9999 are clamped so the prefix keeps its
// fixed width.
func Slugify(title string, date time.Time) string {
	d := date.UTC()
	y := min(max(d.Year(), 0), 9999)
	prefix := fmt.Sprintf("%04d-%02d-%02d-", y, int(d.Month()), d.Day())

	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(title) {
		var part string
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			part = string(r)
		case fold[r] != "":
			part = fold[r]
		default:
			hyphen = b.Len() > 0
			continue
		}
		if hyphen {
			b.WriteByte('-')
			hyphen = false
		}
		b.WriteString(part)
	}
	body := b.String()
	if limit := MaxSlugLen - len(prefix); len(body) > limit {
		body = body[:limit]
		// Cut back to the last whole word unless that would throw most of the title away.
		if i := strings.LastIndexByte(body, '-'); i > limit/2 {
			body = body[:i]
		}
		body = strings.Trim(body, "-")
	}
	if body == "" {
		body = "article"
	}
	return prefix + body
}
