package handlers

import (
	"encoding/json"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/static"
)

// ThemeColor is the colour of the browser's bar and the installed app's title bar: the
// header's dark slate (the pages' <meta name="theme-color"> names it too).
const ThemeColor = "#0f172a"

type manifestIcon struct {
	Src     string `json:"src"`
	Sizes   string `json:"sizes"`
	Type    string `json:"type"`
	Purpose string `json:"purpose,omitempty"`
}

// webManifest is what a browser reads to install Ounce as an app (W3C Web App Manifest).
var webManifest, _ = json.Marshal(struct {
	ID              string         `json:"id"`
	Name            string         `json:"name"`
	ShortName       string         `json:"short_name"`
	Description     string         `json:"description"`
	StartURL        string         `json:"start_url"`
	Scope           string         `json:"scope"`
	Display         string         `json:"display"`
	BackgroundColor string         `json:"background_color"`
	ThemeColor      string         `json:"theme_color"`
	Icons           []manifestIcon `json:"icons"`
}{
	ID: "/", Name: "Ounce", ShortName: "Ounce",
	Description: "Track physical gold, silver, platinum and palladium against their spot prices.",
	StartURL:    "/", Scope: "/", Display: "standalone",
	BackgroundColor: "#f8fafc", ThemeColor: ThemeColor,
	Icons: []manifestIcon{
		{Src: "/static/img/icon-192.png", Sizes: "192x192", Type: "image/png", Purpose: "any"},
		{Src: "/static/img/icon-512.png", Sizes: "512x512", Type: "image/png", Purpose: "any"},
		{Src: "/static/img/icon-maskable-512.png", Sizes: "512x512", Type: "image/png", Purpose: "maskable"},
	},
})

// WebManifest serves /manifest.webmanifest, which makes the site installable (and so able to
// receive push on iPhones, where only installed web apps may).
func (h *Handlers) WebManifest(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, "application/manifest+json")
	c.Set(fiber.HeaderCacheControl, "public, max-age=3600")
	return c.Send(webManifest)
}

// ServiceWorker serves static/js/sw.js from the site root, so its scope is "/": it shows pushed
// price alerts and keeps the offline page and the last dashboard seen.
func (h *Handlers) ServiceWorker(c *fiber.Ctx) error {
	b, err := static.FS.ReadFile("js/sw.js")
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, "text/javascript; charset=utf-8")
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Set("Service-Worker-Allowed", "/")
	return c.Send(b)
}
