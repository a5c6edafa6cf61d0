// Package mailtest runs a real SMTP server (github.com/emersion/go-smtp) on loopback for
// tests: it speaks STARTTLS with a certificate made for the test, asks for PLAIN
// authentication when given credentials, and keeps every message it accepts.
package mailtest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"errors"
	"io"
	"math/big"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Message is one accepted message.
type Message struct {
	From string
	To   []string
	Raw  []byte
	// TLS is whether the connection was encrypted when the message was sent.
	TLS bool
	// User is who authenticated ("" for no one).
	User string
}

// Parsed reads the message's headers and body.
func (m Message) Parsed(t testing.TB) (*mail.Message, string) {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(m.Raw))
	if err != nil {
		t.Fatalf("parse message: %v", err)
	}
	var body io.Reader = msg.Body
	switch strings.ToLower(msg.Header.Get("Content-Transfer-Encoding")) {
	case "quoted-printable":
		body = quotedprintable.NewReader(body)
	case "base64":
		body = base64.NewDecoder(base64.StdEncoding, body)
	}
	b, err := io.ReadAll(body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return msg, string(b)
}

// Server is the running SMTP server.
type Server struct {
	Addr string
	// ClientTLS trusts the server's certificate (give it to the mail service).
	ClientTLS  *tls.Config
	user, pass string
	implicit   bool

	mu       sync.Mutex
	msgs     []Message
	failTemp int  // the next failTemp messages get 451
	failPerm bool // every message gets 550
	arrived  chan struct{}
}

// Options configure Start.
type Options struct {
	// User and Pass, when set, are required (AUTH PLAIN).
	User, Pass string
	// NoTLS offers no STARTTLS.
	NoTLS bool
	// Implicit speaks TLS from the first byte (smtps://) instead of offering STARTTLS.
	Implicit bool
}

// Start runs a server on 127.0.0.1 until the test ends.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	s := &Server{user: o.User, pass: o.Pass, arrived: make(chan struct{}, 100)}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) { return &session{s: s, c: c}, nil }))
	srv.Domain = "localhost"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	srv.AllowInsecureAuth = o.NoTLS
	if !o.NoTLS {
		cert, pool := selfSigned(t)
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
		s.ClientTLS = &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Addr = ln.Addr().String()
	s.implicit = o.Implicit
	if o.Implicit {
		ln = tls.NewListener(ln, srv.TLSConfig)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

// URL is an smtp:// (smtps:// when Implicit) URL of the server, with credentials if it wants them.
func (s *Server) URL() string {
	u := url.URL{Scheme: "smtp", Host: s.Addr}
	if s.implicit {
		u.Scheme = "smtps"
	}
	if s.user != "" {
		u.User = url.UserPassword(s.user, s.pass)
	}
	return u.String()
}

// FailNext makes the next n messages fail with a temporary 451.
func (s *Server) FailNext(n int) { s.mu.Lock(); s.failTemp = n; s.mu.Unlock() }

// RefuseAll makes every message fail with a permanent 550.
func (s *Server) RefuseAll(on bool) { s.mu.Lock(); s.failPerm = on; s.mu.Unlock() }

// Messages are the messages accepted so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

type session struct {
	s    *Server
	c    *smtp.Conn
	from string
	to   []string
	user string
}

func (x *session) AuthMechanisms() []string {
	if x.s.user == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (x *session) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if username != x.s.user || password != x.s.pass {
			return errors.New("invalid credentials")
		}
		x.user = username
		return nil
	}), nil
}

func (x *session) Mail(from string, _ *smtp.MailOptions) error {
	if x.s.user != "" && x.user == "" {
		return smtp.ErrAuthRequired
	}
	x.from = from
	return nil
}

func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error { x.to = append(x.to, to); return nil }

func (x *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s := x.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failPerm {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "mailbox unavailable"}
	}
	if s.failTemp > 0 {
		s.failTemp--
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	}
	_, isTLS := x.c.TLSConnectionState()
	s.msgs = append(s.msgs, Message{From: x.from, To: append([]string(nil), x.to...), Raw: raw, TLS: isTLS, User: x.user})
	return nil
}

func (x *session) Reset()        { x.from, x.to = "", nil }
func (x *session) Logout() error { return nil }

// selfSigned makes a certificate for 127.0.0.1 and a pool that trusts it.
func selfSigned(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(c)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: c}, pool
}
