package intel

import (
	"time"

	"github.com/ouncehq/ounce/internal/metals"
	"github.com/shopspring/decimal"
)

// fixtureNow is the publication time every fixture is relative to.
var fixtureNow = time.Date(2026, 11, 22, 15, 0, 0, 0, time.UTC)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func ago(d time.Duration) time.Time { return fixtureNow.Add(-d) }

// fixtureStories is a day of made-up feed items: two clusters with several sources, one
// strong singleton, weak and old items that must not make articles.
func fixtureStories() []Story {
	return []Story{
		{ID: "cb1", Title: "Central bank of China extends gold purchases for 18th straight month", URL: "https://news.example/cb1",
			Source: "Wire One", Summary: "The central bank added 5 tonnes in October, official data showed. Holdings now stand at 2,280 tonnes. More detail follows.",
			Category: CategoryCentralBank, Metals: []metals.Metal{metals.Gold}, Relevance: 85, PublishedAt: ago(6 * time.Hour)},
		{ID: "cb2", Title: "China's central bank extends gold buying streak, data shows", URL: "https://news.example/cb2",
			Source: "Metals Desk", Summary: "Official reserve figures point to continued buying.",
			Category: CategoryCentralBank, Metals: []metals.Metal{metals.Gold}, Relevance: 70, PublishedAt: ago(3 * time.Hour)},
		{ID: "sd1", Title: "Silver coin premiums climb as US Mint suspends sales", URL: "https://news.example/sd1",
			Source: "Coin Ledger", Summary: "Dealers report longer waits for one-ounce coins.",
			Category: CategorySupplyDemand, Metals: []metals.Metal{metals.Silver}, Relevance: 75, PublishedAt: ago(20 * time.Hour)},
		{ID: "sd2", Title: "US Mint suspends silver eagle sales amid coin premium climb", URL: "https://news.example/sd2",
			Source: "Bullion Daily", Category: CategorySupplyDemand, Metals: []metals.Metal{metals.Silver}, Relevance: 55, PublishedAt: ago(10 * time.Hour)},
		{ID: "mi1", Title: "Strike halts output at South African platinum shaft", URL: "https://news.example/mi1",
			Source: "Mine Report", Category: CategoryMining, Metals: []metals.Metal{metals.Platinum}, Relevance: 40, PublishedAt: ago(5 * time.Hour)},
		{ID: "geo1", Title: "Safe-haven buying returns as border tensions flare", URL: "https://news.example/geo1",
			Source: "World Brief", Summary: "Investors sought shelter in metal after overnight clashes.",
			Category: CategoryGeopolitical, Metals: []metals.Metal{metals.Gold}, Relevance: 65, PublishedAt: ago(2 * time.Hour)},
		{ID: "po1", Title: "Fed holds rates steady, signals patience", URL: "https://news.example/po1",
			Source: "Wire One", Category: CategoryPolicy, Metals: []metals.Metal{metals.Gold, metals.Silver}, Relevance: 60, PublishedAt: ago(26 * time.Hour)},
		{ID: "po2", Title: "Federal Reserve keeps rates on hold", URL: "https://news.example/po2",
			Source: "Metals Desk", Category: CategoryPolicy, Metals: []metals.Metal{metals.Gold}, Relevance: 50, PublishedAt: ago(25 * time.Hour)},
		{ID: "old1", Title: "Central bank of China extends gold purchases for 17th month", URL: "https://news.example/old1",
			Source: "Wire One", Category: CategoryCentralBank, Metals: []metals.Metal{metals.Gold}, Relevance: 90, PublishedAt: ago(72 * time.Hour)},
		// The same item delivered twice by a feed.
		{ID: "cb1", Title: "Central bank of China extends gold purchases for 18th straight month", URL: "https://news.example/cb1",
			Source: "Wire One", Category: CategoryCentralBank, Metals: []metals.Metal{metals.Gold}, Relevance: 85, PublishedAt: ago(6 * time.Hour)},
	}
}

// fixtureContext has all four prices and one COMEX line.
func fixtureContext() Context {
	return Context{
		Now: fixtureNow,
		Prices: map[metals.Metal]PricePoint{
			metals.Gold:      {Price: dec("2650.4"), ChangePct: dec("-0.35")},
			metals.Silver:    {Price: dec("31.2"), ChangePct: dec("1.4")},
			metals.Platinum:  {Price: dec("985.5"), ChangePct: dec("0.1")},
			metals.Palladium: {Price: dec("1012.75"), ChangePct: dec("-2.05")},
		},
		Vault: []VaultLine{{
			Metal: metals.Silver, Registered: dec("30123456.789"), RegisteredChange: dec("-1234567.1"),
			Combined: dec("310000000"), CombinedChange: dec("-2000000.5"), AsOf: time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC),
		}},
	}
}
