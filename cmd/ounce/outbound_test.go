package main

import (
	"net/netip"
	"strings"
	"testing"
)

func TestPushAllowPrivateSetting(t *testing.T) {
	t.Setenv("OUNCE_PUSH_ALLOW_PRIVATE", "10.0.0.0/8, not-a-range")
	if _, err := loadConfig(nil, nil); err == nil || !strings.Contains(err.Error(), "OUNCE_PUSH_ALLOW_PRIVATE") {
		t.Fatalf("bad value: %v", err)
	}
	t.Setenv("OUNCE_PUSH_ALLOW_PRIVATE", "10.20.0.0/16,192.168.7.9")
	c, err := loadConfig(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := c.App.Alerts.AllowPrivate
	if len(got) != 2 || got[0] != netip.MustParsePrefix("10.20.0.0/16") || got[1] != netip.MustParsePrefix("192.168.7.9/32") {
		t.Fatalf("AllowPrivate %v", got)
	}
}
