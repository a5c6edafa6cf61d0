package account

import (
	"flag"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The common-password list is generated here, from patterns people are known to choose and
// guessing tools try first, and committed as common-passwords.txt. Nothing in it is copied
// from a published or leaked list: the words below are ones we wrote ourselves (everyday
// words, names, sports, pets, seasons, and words of this domain), and everything else is made
// by rules — keyboard walks, digit and letter runs, repeated blocks, years and dates, common
// suffixes, doubled words and leetspeak substitutions. Entries shorter than MinPasswordLen are
// left out: the length rule already refuses them. The order is our own guess of likelihood
// (the tiers below, in turn); it is not measured from real-world frequencies.
//
// Regenerate after changing the rules: go test ./internal/account -run TestCommonPasswordList -update

var update = flag.Bool("update", false, "rewrite common-passwords.txt from the generator")

// commonListSize is how many entries the list holds.
const commonListSize = 10000

// pwWords are everyday words people build passwords from, written by us.
var pwWords = strings.Fields(`
password passw0rd iloveyou sunshine princess football baseball basketball superman batman
dragon monkey shadow master letmein welcome trustno1 whatever qwerty starwars computer
michael jennifer jordan hunter soccer hockey killer charlie summer winter spring autumn
freedom flower cookie chocolate butterfly rainbow purple orange banana pepper ginger tigger
buster maggie bailey daniel andrew joshua thomas robert matthew jessica ashley amanda nicole
samantha michelle elizabeth hannah lauren taylor austin dallas chicago boston newyork
california texas america england london paris canada mexico admin administrator login
secret changeme default guest testing access internet security money silver golden gold
platinum palladium diamond crystal treasure bullion stacker stacking ounce ounces investor
trading bitcoin crypto family friends forever lovely loveme babygirl angel heaven blessed
faith peace happy smile sweet honey sugar cheese pizza coffee music guitar piano dancer
cowboy cowboys yankees lakers eagles steelers packers raiders chelsea arsenal liverpool
barcelona madrid pokemon naruto minecraft fortnite roblox zelda mario matrix hello
helloworld goodbye nothing something anything everything mustang ferrari porsche corvette
harley thunder lightning phoenix falcon tiger wolf bear eagle shark panther jaguar cheetah
spider ninja pirate wizard merlin gandalf legend warrior knight king queen prince player
gamer winner champion rocket galaxy planet universe cosmos starlight moonlight sunset ocean
river mountain forest garden nature snowball snowflake christmas halloween valentine
birthday newyear monday friday sunday january february march april july august september
october november december coins eagles maple krugerrand buffalo sovereign britannia nugget
goldbug silverbug preciousmetals goldbar silverbar stackingsilver hodl moon tothemoon
welcome1 mypassword password1 letmein1 qwerty1 abc123 iloveu princess1 sunshine1
`)

// pwSuffixes are what people append to a word, most likely first: short digit runs and
// exclamation marks, then recent years, then other numbers, then older years.
var pwSuffixes = func() []string {
	out := strings.Fields(`1 12 123 1234 12345 123456 ! 1! 123! 01 69 007`)
	for y := 2026; y >= 1980; y-- {
		out = append(out, strconv.Itoa(y))
	}
	out = append(out, strings.Fields(`99 11 22 13 21 7 2 3 @123 #1 !! 321 00 1234! 12! 88 777 666 555 444 100 101`)...)
	for y := 1979; y >= 1950; y-- {
		out = append(out, strconv.Itoa(y))
	}
	for y := 99; y >= 50; y-- {
		out = append(out, strconv.Itoa(y))
	}
	return out
}()

// keyboardRows are the rows and columns of a US keyboard, as a hand walks them.
var keyboardRows = []string{
	"1234567890", "qwertyuiop", "asdfghjkl", "zxcvbnm", "!@#$%^&*()",
	"1qaz2wsx3edc4rfv5tgb6yhn7ujm8ik9ol0p", "qazwsxedcrfvtgbyhnujmikolp", "zaqxswcdevfrbgtnhymjukilop",
	"1q2w3e4r5t6y7u8i9o0p", "q1w2e3r4t5y6u7i8o9p0", "qweasdzxc", "zaq12wsx", "!qaz@wsx#edc",
	"poiuytrewq", "lkjhgfdsa", "mnbvcxz", "0987654321", "qwertyuiopasdfghjklzxcvbnm",
}

func generateCommonPasswords() []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		s = strings.ToLower(s)
		if len(out) >= commonListSize || seen[s] || len([]rune(s)) < MinPasswordLen || len(s) > 64 || strings.ContainsAny(s, " \t\n") {
			return
		}
		seen[s] = true
		out = append(out, s)
	}
	digits := "01234567890123456789"
	// Tier 1: digit runs up and down, and the words on their own or with a favourite suffix.
	for n := MinPasswordLen; n <= 20; n++ {
		for start := 0; start < 10; start++ {
			up := ""
			for i := 0; i < n; i++ {
				up += string(digits[(start+i)%10])
			}
			add(up)
			add(reverse(up))
		}
	}
	add("12345678910")
	add("1234567891011")
	add("123456789101112")
	for _, w := range pwWords {
		add(w)
		for _, s := range pwSuffixes[:12] {
			add(w + s)
		}
	}
	// Tier 2: keyboard walks and their prefixes, forwards and back, and walks with digits.
	for _, row := range keyboardRows {
		for n := MinPasswordLen; n <= len(row); n++ {
			add(row[:n])
			add(reverse(row[:n]))
			add(row[len(row)-n:])
		}
		for _, s := range pwSuffixes[:6] {
			add(row + s)
		}
	}
	for _, a := range []string{"qwerty", "asdfgh", "zxcvbn", "qwertz", "azerty", "asdf", "qwer", "zxcv", "1qaz", "2wsx"} {
		for _, b := range []string{"123456", "1234", "12345", "123456789", "qwerty", "asdfgh", "zxcvbn", "!@#$", "uiop", "1q2w3e"} {
			add(a + b)
			add(b + a)
		}
	}
	// Tier 3: one block repeated to ten or more characters.
	for _, block := range strings.Fields(`12 123 1234 12345 abc abcd ab 01 10 13 21 69 88 99 11 00 007 xo xyz qwe asd zxc a1 1a aa11 ab12 abc1 abc123 123abc qaz wsx lol haha hehe love gold ag au xx ok yes no`) {
		s := block
		for len(s) < MinPasswordLen {
			s += block
		}
		add(s)
		add(s + block)
	}
	for _, pair := range strings.Fields(`1122334455 11223344556677 1212121212 1231231231 1234512345 1234554321 1029384756 0102030405 1111122222 1122112211 1357924680 2468013579 0000011111 1234567890qwerty a1b2c3d4e5 a1b2c3d4e5f6 1a2b3c4d5e abcdefghij abcdefghijk abcdefghijkl abcdefghijklmnop abcdefghijklmnopqrstuvwxyz zyxwvutsrq abcde12345 12345abcde abc123abc123 aa11bb22cc33 aabbccddee abcabcabcabc`) {
		add(pair)
	}
	// Tier 4: a word twice; "ilove", "my" or "the" before a word; leetspeak spellings.
	for _, w := range pwWords {
		add(w + w)
		add("ilove" + w)
		add("my" + w)
		add("the" + w)
		add(w + "forever")
		add(w + "lover")
	}
	// Leetspeak spellings of the words, alone and with the favourite suffixes.
	for _, w := range pwWords {
		for _, l := range leetVariants(w) {
			add(l)
			for _, s := range pwSuffixes[:8] {
				add(l + s)
			}
		}
	}
	// Tier 5: memorable dates with separators (new year, Christmas, the Fourth of July).
	for y := 2010; y >= 1960; y-- {
		for _, d := range []string{"01/01/", "12/25/", "07/04/", "01-01-", "31-12-", "25.12."} {
			add(d + strconv.Itoa(y))
		}
	}
	// Tier 6: every word with each suffix in turn, so the list ends on the least likely
	// suffixes (the oldest years) rather than on whole words. Then the leetspeak spellings.
	for _, s := range pwSuffixes {
		for _, w := range pwWords {
			add(w + s)
		}
	}
	for _, s := range pwSuffixes {
		for _, w := range pwWords {
			for _, l := range leetVariants(w) {
				add(l + s)
			}
		}
	}
	return out
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// leetVariants are a word with the usual substitutions: each alone, then all at once.
func leetVariants(w string) []string {
	subs := [][2]string{{"a", "@"}, {"o", "0"}, {"e", "3"}, {"i", "1"}, {"s", "$"}, {"a", "4"}, {"s", "5"}, {"t", "7"}}
	var out []string
	all := w
	for _, s := range subs {
		if strings.Contains(w, s[0]) {
			out = append(out, strings.ReplaceAll(w, s[0], s[1]))
			all = strings.ReplaceAll(all, s[0], s[1])
		}
	}
	if all != w {
		out = append(out, all)
	}
	return out
}

// TestCommonPasswordListIsGenerated holds the shipped list to its generator: exactly 10,000
// distinct lower-case entries, each long enough that only this rule refuses it.
func TestCommonPasswordListIsGenerated(t *testing.T) {
	want := strings.Join(generateCommonPasswords(), "\n") + "\n"
	if *update {
		if err := os.WriteFile("common-passwords.txt", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if commonPasswordsText != want {
		t.Fatal("common-passwords.txt differs from its generator: go test ./internal/account -run TestCommonPasswordList -update")
	}
	lines := strings.Split(strings.TrimSuffix(commonPasswordsText, "\n"), "\n")
	if len(lines) != commonListSize {
		t.Fatalf("the list has %d entries, want %d", len(lines), commonListSize)
	}
	seen := map[string]bool{}
	for _, l := range lines {
		if seen[l] || l != strings.ToLower(l) || len([]rune(l)) < MinPasswordLen {
			t.Fatalf("bad entry %q", l)
		}
		seen[l] = true
	}
}
