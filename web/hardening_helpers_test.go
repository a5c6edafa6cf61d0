package web_test

import (
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"
)

// These helpers drive a live server over loopback, as a browser or an attacker would: real
// connections, real headers, cookies kept by a jar, and no redirects followed.

// liveClient is one browser (or one attacker) talking to a live server.
type liveClient struct {
	t    *testing.T
	base string
	c    *http.Client
	csrf string
	// from is the loopback address its connections come from ("" = the default).
	from string
}

func newLiveClient(t *testing.T, base, from string) *liveClient {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if from != "" {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
		c.Transport = &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}
	}
	return &liveClient{t: t, base: base, c: c, from: from}
}

// liveResp is a response read whole.
type liveResp struct {
	Status int
	Header http.Header
	Body   string
}

func (l *liveClient) do(req *http.Request) liveResp {
	l.t.Helper()
	res, err := l.c.Do(req)
	if err != nil {
		l.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		l.t.Fatalf("%s %s: reading the body: %v", req.Method, req.URL, err)
	}
	if m := csrfRe.FindStringSubmatch(string(b)); m != nil {
		l.csrf = m[1]
	}
	return liveResp{Status: res.StatusCode, Header: res.Header, Body: string(b)}
}

func (l *liveClient) get(path string, header ...string) liveResp {
	l.t.Helper()
	req, err := http.NewRequest("GET", l.base+path, nil)
	if err != nil {
		l.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return l.do(req)
}

// post submits a form with the CSRF token of the last page (unless the form sets _csrf),
// plus any header pairs.
func (l *liveClient) post(path string, form url.Values, header ...string) liveResp {
	l.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if _, ok := form["_csrf"]; !ok && l.csrf != "" {
		form.Set("_csrf", l.csrf)
	}
	req, err := http.NewRequest("POST", l.base+path, strings.NewReader(form.Encode()))
	if err != nil {
		l.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return l.do(req)
}

// login signs in with the password every test account has.
func (l *liveClient) login(email string) liveResp {
	l.t.Helper()
	l.get("/login")
	return l.post("/login", url.Values{"email": {email}, "password": {"correct horse battery"}})
}

// cookie is the value of a cookie the jar holds for the server.
func (l *liveClient) cookie(name string) string {
	u, _ := url.Parse(l.base)
	for _, c := range l.c.Jar.Cookies(u) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

// setCookies lists the names of the cookies a response sets.
func setCookies(h http.Header) []string {
	var out []string
	for _, c := range (&http.Response{Header: h}).Cookies() {
		out = append(out, c.Name)
	}
	return out
}
