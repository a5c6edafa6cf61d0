package account

import (
	"os"
	"testing"
)

// dummyAtInit records, before any test runs, whether importing the package computed the
// 19 MiB dummy hash: it must not, or every binary importing account pays for it at start-up.
var dummyAtInit bool

func TestMain(m *testing.M) {
	dummyAtInit = dummy.computed()
	os.Exit(m.Run())
}

func TestDummyHashIsLazy(t *testing.T) {
	if dummyAtInit {
		t.Fatal("the dummy password hash was computed at package init")
	}
	l := &lazyHash{pw: "some password of ours"}
	if l.computed() {
		t.Fatal("a fresh lazy hash claims to be computed")
	}
	h := l.get()
	if !l.computed() || !CheckPassword(h, "some password of ours") {
		t.Fatalf("lazy hash not usable after first use: %q", h)
	}
	if l.get() != h {
		t.Fatal("lazy hash recomputed: it must be made once")
	}
}
