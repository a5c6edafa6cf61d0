package kit

import "testing"

func TestPagesForGivesTheGroupItsAuth(t *testing.T) {
	got := PagesFor(AuthGold, []PageRoute{{Method: "GET", Path: "/a"}, {Method: "POST", Path: "/b", Auth: AuthGold, Costly: true}})
	for _, r := range got {
		if r.Auth != AuthGold {
			t.Errorf("%s %s: auth %d, want the group's", r.Method, r.Path, r.Auth)
		}
	}
	if !got[1].Costly || got[0].Path != "/a" || got[1].Path != "/b" {
		t.Errorf("the routes changed beyond their auth: %+v", got)
	}
}

func TestPagesForRefusesARouteNamingAnotherAuth(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("an admin route in a Gold group was accepted")
		}
	}()
	PagesFor(AuthGold, []PageRoute{{Method: "POST", Path: "/x", Auth: AuthAdmin}})
}

func TestBodyTooLargeNamesTheLimit(t *testing.T) {
	for limit, want := range map[int]string{4 << 10: "Body over 4 KiB.", DefaultMaxBody: "Body over 64 KiB.", 256 << 10: "Body over 256 KiB."} {
		if r := BodyTooLarge(limit); r.Status != 413 || r.Description != want {
			t.Errorf("BodyTooLarge(%d) = %d %q, want 413 %q", limit, r.Status, r.Description, want)
		}
	}
}
