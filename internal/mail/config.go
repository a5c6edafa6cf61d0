// Package mail is the mail service: password reset, address verification, notices of
// security changes, and price alerts and the daily brief by email. Every message is a row of
// the mail outbox written in the transaction that decided it; the leader drains the outbox
// through a maintained SMTP client (github.com/wneessen/go-mail) with retries, the same rules
// as the push outbox. Without OUNCE_SMTP_URL the service is off: nothing is queued and the
// pages say so.
package mail

import (
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
)

// Config is the mail part of the service configuration.
type Config struct {
	// SMTPURL is smtp://[user:pass@]host[:port] (STARTTLS required, port 587 by default) or
	// smtps://… (TLS from the first byte, port 465 by default). Empty turns mail off.
	SMTPURL string
	// From is the sender address (OUNCE_MAIL_FROM); required when SMTPURL is set.
	From string
	// AllowPlainLoopback lets smtp:// to a loopback address go without STARTTLS when the
	// server does not offer it (a local relay, tests). Other hosts always need TLS.
	AllowPlainLoopback bool
	// BaseURL is the public URL links in messages point to.
	BaseURL string
	// ResetsPerIP is how many "forgot password" requests one client address may make an hour
	// (OUNCE_RESET_LIMIT_PER_IP, 10 by default; 0 = no limit). It stops one client from
	// probing many addresses or flooding mailboxes; each address has its own limits as well.
	ResetsPerIP int
}

// Target is a parsed SMTP URL.
type Target struct {
	Host     string
	Port     int
	Implicit bool // smtps://: TLS from the first byte
	Username string
	Password string
	Loopback bool
}

// ParseSMTPURL checks an OUNCE_SMTP_URL value.
func ParseSMTPURL(raw string) (Target, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return Target{}, fmt.Errorf("not a URL")
	}
	var t Target
	switch u.Scheme {
	case "smtp":
		t.Port = 587
	case "smtps":
		t.Port, t.Implicit = 465, true
	default:
		return Target{}, fmt.Errorf("scheme must be smtp:// or smtps://, got %q", u.Scheme)
	}
	t.Host = u.Hostname()
	if t.Host == "" {
		return Target{}, fmt.Errorf("no host")
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return Target{}, fmt.Errorf("port must be 1–65535, got %q", p)
		}
		t.Port = n
	}
	if u.User != nil {
		t.Username = u.User.Username()
		t.Password, _ = u.User.Password()
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return Target{}, fmt.Errorf("takes no path or query")
	}
	ip := net.ParseIP(t.Host)
	t.Loopback = t.Host == "localhost" || ip != nil && ip.IsLoopback()
	return t, nil
}

// Check reports what is wrong with the configuration (nil when mail is off or well set).
func (c Config) Check() error {
	if strings.TrimSpace(c.SMTPURL) == "" {
		return nil
	}
	if _, err := ParseSMTPURL(c.SMTPURL); err != nil {
		return fmt.Errorf("OUNCE_SMTP_URL: %v", err)
	}
	if strings.TrimSpace(c.From) == "" {
		return fmt.Errorf("OUNCE_MAIL_FROM is required when OUNCE_SMTP_URL is set")
	}
	if _, err := mail.ParseAddress(c.From); err != nil {
		return fmt.Errorf("OUNCE_MAIL_FROM must be an address such as Ounce <ounce@example.com>, got %q", c.From)
	}
	return nil
}

// WithBaseURL is c with links pointing to base unless c names its own.
func (c Config) WithBaseURL(base string) Config {
	if c.BaseURL == "" {
		c.BaseURL = base
	}
	return c
}
