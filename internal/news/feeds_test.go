package news

import (
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseFeedList(t *testing.T) {
	dir := t.TempDir()
	emptyFile := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(emptyFile, []byte("# nothing here\n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	badFile := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(badFile, []byte("https://ok.example.com/feed\nftp://nope.example.com/feed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		in      string
		want    []Feed
		wantErr string
	}{
		{name: "blank", in: "  \n ", want: nil},
		{
			name: "comma separated",
			in:   "https://a.example.com/rss, http://b.example.com/feed.xml",
			want: []Feed{{"a.example.com", "https://a.example.com/rss"}, {"b.example.com", "http://b.example.com/feed.xml"}},
		},
		{
			name: "newline separated with names and query strings",
			in:   "Wire=https://a.example.com/rss\r\nSearch = https://news.example.net/rss/search?q=gold+price&hl=en\n",
			want: []Feed{{"Wire", "https://a.example.com/rss"}, {"Search", "https://news.example.net/rss/search?q=gold+price&hl=en"}},
		},
		{
			name: "equals only inside the URL is not a name",
			in:   "https://a.example.com/rss?x=1",
			want: []Feed{{"a.example.com", "https://a.example.com/rss?x=1"}},
		},
		{
			name: "scheme is case-insensitive, fragment dropped, duplicates dropped",
			in:   "HTTPS://a.example.com/rss#frag,https://a.example.com/rss",
			want: []Feed{{"a.example.com", "https://a.example.com/rss"}},
		},
		{
			name: "file with comments and a duplicate",
			in:   "testdata/feeds.txt",
			want: []Feed{
				{"Sample Wire", "https://wire.example.com/rss.xml"},
				{"notebook.example.org", "https://notebook.example.org/atom.xml"},
				{"Search", "https://news.example.net/rss/search?q=gold+price&hl=en-US"},
			},
		},
		{name: "file with only comments", in: emptyFile, want: nil},
		{name: "file with a bad line names the line", in: badFile, wantErr: "bad.txt line 2"},
		{name: "missing file", in: filepath.Join(dir, "missing.txt"), wantErr: "neither a readable file"},
		{name: "directory", in: dir, wantErr: "neither a readable file"},
		{name: "not http", in: "ftp://example.com/feed", wantErr: "http or https"},
		{name: "no host", in: "https:///path", wantErr: "no host"},
		{name: "relative", in: "/feeds/rss.xml,https://a.example.com", wantErr: "http or https"},
		{name: "empty name", in: "=https://a.example.com", wantErr: "empty name"},
		{name: "space in URL", in: "https://a.example.com/a b", wantErr: "spaces"},
		{name: "one bad entry fails the list", in: "https://a.example.com, javascript:alert(1)", wantErr: "entry 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseFeedList(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestDefaultFeeds(t *testing.T) {
	feeds := DefaultFeeds()
	if len(feeds) < 3 {
		t.Fatalf("only %d default feeds", len(feeds))
	}
	seen := map[string]bool{}
	var list []string
	for _, f := range feeds {
		u, err := url.Parse(f.URL)
		if err != nil || u.Scheme != "https" || u.Host == "" || f.Name == "" {
			t.Errorf("bad default feed %+v", f)
		}
		if seen[f.URL] {
			t.Errorf("duplicate default feed %s", f.URL)
		}
		seen[f.URL] = true
		list = append(list, f.Name+"="+f.URL)
	}
	// The defaults must survive the operator's own syntax, so they can be copied
	// into a feed-list file.
	back, err := ParseFeedList(strings.Join(list, "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, feeds) {
		t.Errorf("defaults do not round-trip:\n got %+v\nwant %+v", back, feeds)
	}
}

func FuzzParseFeedList(f *testing.F) {
	for _, s := range []string{
		"https://a.example.com/rss",
		"Name=https://a.example.com/rss?q=1,http://b.example.com",
		"x=y=z", "=", ",,,", "https://[::1]:80/x", "http://%zz", "n=\x00https://a.example.com",
		"testdata/feeds.txt",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		feeds, err := ParseFeedList(s)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, fd := range feeds {
			u, perr := url.Parse(fd.URL)
			if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
				t.Fatalf("accepted bad URL %q from %q", fd.URL, s)
			}
			if fd.Name == "" || strings.ContainsAny(fd.Name, "\x00\n\r") || len([]rune(fd.Name)) > maxFeedNameLen {
				t.Fatalf("bad name %q from %q", fd.Name, s)
			}
			if seen[fd.URL] {
				t.Fatalf("duplicate %q from %q", fd.URL, s)
			}
			seen[fd.URL] = true
		}
	})
}
