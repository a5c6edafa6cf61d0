// Package components holds the small building blocks every page shares.
package components

import "strconv"

// Meta is what the layout needs to know about the request.
type Meta struct {
	Title     string
	Nav       string
	Nonce     string
	CSRF      string
	SignedIn  bool
	UserEmail string
	UserTier  string
	Version   string
}

// NavItem is one link of the top navigation.
type NavItem struct {
	Key, Label, Href string
	SignedInOnly     bool
}

// NavItems lists the areas of the app in order.
var NavItems = []NavItem{
	{Key: "home", Label: "Dashboard", Href: "/", SignedInOnly: true},
	{Key: "markets", Label: "Markets", Href: "/markets"},
	{Key: "calculators", Label: "Calculators", Href: "/calculators/junk-silver"},
	{Key: "signal", Label: "Stack Signal", Href: "/signal"},
	{Key: "intel", Label: "Intel", Href: "/intel"},
	{Key: "vault", Label: "Vault Watch", Href: "/vault"},
	{Key: "dealers", Label: "Dealers", Href: "/dealers"},
	{Key: "holdings", Label: "Holdings", Href: "/holdings", SignedInOnly: true},
	{Key: "advisor", Label: "Advisor", Href: "/advisor", SignedInOnly: true},
	{Key: "settings", Label: "Settings", Href: "/settings/account", SignedInOnly: true},
}

func itoa(n int) string { return strconv.Itoa(n) }
