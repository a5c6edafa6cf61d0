package account

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/crypto/argon2"
)

// Password length rules, counted in characters (runes).
const (
	MinPasswordLen = 10
	MaxPasswordLen = 256
)

// argon2id parameters: OWASP's baseline (19 MiB, 2 passes), fast enough for a 2-core host.
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
)

// HashPassword returns an encoded argon2id hash of pw with a fresh random salt.
func HashPassword(pw string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(pw), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// CheckPassword compares pw with an encoded hash in constant time. The parameters are read
// from the hash, so hashes made with older settings keep working.
func CheckPassword(encoded, pw string) bool {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var m uint32
	var t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil {
		return false
	}
	b64 := base64.RawStdEncoding
	salt, err1 := b64.DecodeString(parts[4])
	want, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false
	}
	got := argon2.IDKey([]byte(pw), salt, t, m, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// lazyHash is a password hash made the first time it is needed. Computing it costs 19 MiB and
// a few hundred milliseconds, which every process importing this package (the CLI, every test
// binary) would otherwise pay at start-up whether or not anybody signs in.
type lazyHash struct {
	once sync.Once
	pw   string
	hash string
	made atomic.Bool
}

func (l *lazyHash) get() string {
	l.once.Do(func() {
		// A failed hash leaves "", which CheckPassword rejects cheaply; crypto/rand does not
		// fail on the platforms we run on.
		l.hash, _ = HashPassword(l.pw)
		l.made.Store(true)
	})
	return l.hash
}

// computed reports whether the hash has been made (tests).
func (l *lazyHash) computed() bool { return l.made.Load() }

// dummy is checked when no account matches an email, so a miss costs what a hit costs and
// the timing of a failed sign-in says nothing about which emails have accounts.
var dummy = &lazyHash{pw: "no account has this password, it only burns time"}
