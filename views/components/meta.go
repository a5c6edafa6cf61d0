// Package components holds the small building blocks every page shares.
package components

import "strconv"

// Meta is what the layout needs to know about the request.
type Meta struct {
	Title string
	// Description is the page's one-sentence summary for search results and link previews;
	// empty gives one naming the page (see MetaDescription).
	Description string
	Nav         string
	Nonce       string
	CSRF        string
	SignedIn    bool
	UserEmail   string
	UserTier    string
	Version     string
}

// Describe returns the meta with the page's own description.
func (m Meta) Describe(sentence string) Meta {
	m.Description = sentence
	return m
}

// MetaDescription is the content of the page's <meta name="description">: its own sentence
// when the handler set one, else one built from its title.
func (m Meta) MetaDescription() string {
	switch {
	case m.Description != "":
		return m.Description
	case m.Title != "":
		return m.Title + " on Ounce, a tracker for physical gold, silver, platinum and palladium."
	}
	return "Ounce tracks physical gold, silver, platinum and palladium against their spot prices."
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
