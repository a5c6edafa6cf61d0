package db

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/shopspring/decimal"
)

// DealerRow is a dealer added or edited by an import; built-in dealers without a row keep
// their built-in fields.
type DealerRow struct {
	Slug              string    `db:"slug"`
	Name              string    `db:"name"`
	Site              string    `db:"site"`
	AffiliateTemplate string    `db:"affiliate_url_template"`
	UpdatedAt         time.Time `db:"updated_at"`
}

// DealerProductRow is a product added by an import, beside the built-in catalogue.
type DealerProductRow struct {
	ID        string          `db:"id"`
	Name      string          `db:"name"`
	Metal     string          `db:"metal"`
	WeightOz  decimal.Decimal `db:"weight_oz"`
	Form      string          `db:"form"`
	Purity    decimal.Decimal `db:"purity"`
	UpdatedAt time.Time       `db:"updated_at"`
}

// DealerListingRow is one dealer's product page for one product.
type DealerListingRow struct {
	Dealer    string    `db:"dealer"`
	Product   string    `db:"product"`
	URL       string    `db:"url"`
	UpdatedAt time.Time `db:"updated_at"`
}

// DealerFeedRow is one dealer's JSON price list and how to read it. SKUs is the JSON object
// mapping the dealer's SKUs to product ids.
type DealerFeedRow struct {
	Dealer       string    `db:"dealer"`
	URL          string    `db:"url"`
	ItemsPath    string    `db:"items_path"`
	SKUField     string    `db:"sku_field"`
	PriceField   string    `db:"price_field"`
	InStockField string    `db:"in_stock_field"`
	SKUs         string    `db:"skus"`
	UpdatedAt    time.Time `db:"updated_at"`
}

// DealerCatalogueRows is everything imports have stored about dealers.
type DealerCatalogueRows struct {
	Dealers  []DealerRow
	Products []DealerProductRow
	Listings []DealerListingRow
	Feeds    []DealerFeedRow
}

// DealerQuoteRow is the latest quote of one dealer for one product. Tiers is JSON text.
type DealerQuoteRow struct {
	Dealer    string          `db:"dealer"`
	Product   string          `db:"product"`
	Price     decimal.Decimal `db:"price"`
	InStock   bool            `db:"in_stock"`
	URL       string          `db:"url"`
	Tiers     string          `db:"tiers"`
	Source    string          `db:"source"`
	FetchedAt time.Time       `db:"fetched_at"`
}

// DealerObservationRow is one quote as seen at one moment, with the spot it was compared
// with: the premium history.
type DealerObservationRow struct {
	Dealer     string          `db:"dealer"`
	Product    string          `db:"product"`
	Day        Date            `db:"day"`
	ObservedAt time.Time       `db:"observed_at"`
	Price      decimal.Decimal `db:"price"`
	Spot       decimal.Decimal `db:"spot"`
	PremiumPct decimal.Decimal `db:"premium_pct"`
}

// DealerClickRow is one click through to a dealer. UserID is invalid for visitors.
type DealerClickRow struct {
	Dealer    string        `db:"dealer"`
	Product   string        `db:"product"`
	UserID    sql.NullInt64 `db:"user_id"`
	Referrer  string        `db:"referrer"`
	Via       string        `db:"via"`
	ClickedAt time.Time     `db:"clicked_at"`
	// Visitor is a keyed hash of who clicked ("" for rows from before it was kept); one row
	// per visitor, dealer, product and Minute (minutes since the epoch).
	Visitor string `db:"visitor"`
	Minute  int64  `db:"minute"`
}

// DealerClickCount is how many clicks one dealer received.
type DealerClickCount struct {
	Dealer string `db:"dealer"`
	Clicks int64  `db:"clicks"`
}

// DealerCatalogue reads every imported dealer, product, listing and feed.
func (s *Store) DealerCatalogue(ctx context.Context) (DealerCatalogueRows, error) {
	out := DealerCatalogueRows{Dealers: []DealerRow{}, Products: []DealerProductRow{}, Listings: []DealerListingRow{}, Feeds: []DealerFeedRow{}}
	if err := s.db.SelectContext(ctx, &out.Dealers, `SELECT slug, name, site, affiliate_url_template, updated_at FROM dealers ORDER BY slug`); err != nil {
		return out, fmt.Errorf("dealers: %w", err)
	}
	if err := s.db.SelectContext(ctx, &out.Products, `SELECT id, name, metal, weight_oz, form, purity, updated_at FROM dealer_products ORDER BY id`); err != nil {
		return out, fmt.Errorf("dealer products: %w", err)
	}
	if err := s.db.SelectContext(ctx, &out.Listings, `SELECT dealer, product, url, updated_at FROM dealer_listings ORDER BY dealer, product`); err != nil {
		return out, fmt.Errorf("dealer listings: %w", err)
	}
	if err := s.db.SelectContext(ctx, &out.Feeds, `SELECT dealer, url, items_path, sku_field, price_field, in_stock_field, skus, updated_at
		FROM dealer_feeds ORDER BY dealer, url`); err != nil {
		return out, fmt.Errorf("dealer feeds: %w", err)
	}
	return out, nil
}

// ImportDealerCatalogue adds or replaces dealers (by slug), products (by id), listings (by
// dealer and product) and feeds (by dealer and URL) in one transaction: all or nothing.
func (s *Store) ImportDealerCatalogue(ctx context.Context, in DealerCatalogueRows) error {
	now := s.now()
	return s.WithTx(ctx, func(tx *sqlx.Tx) error {
		for _, d := range in.Dealers {
			if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO dealers (slug, name, site, affiliate_url_template, updated_at) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT (slug) DO UPDATE SET name = excluded.name, site = excluded.site,
				affiliate_url_template = excluded.affiliate_url_template, updated_at = excluded.updated_at`),
				d.Slug, d.Name, d.Site, d.AffiliateTemplate, now); err != nil {
				return fmt.Errorf("dealer %s: %w", d.Slug, err)
			}
		}
		for _, p := range in.Products {
			if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO dealer_products (id, name, metal, weight_oz, form, purity, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (id) DO UPDATE SET name = excluded.name, metal = excluded.metal, weight_oz = excluded.weight_oz,
				form = excluded.form, purity = excluded.purity, updated_at = excluded.updated_at`),
				p.ID, p.Name, p.Metal, p.WeightOz.String(), p.Form, p.Purity.String(), now); err != nil {
				return fmt.Errorf("product %s: %w", p.ID, err)
			}
		}
		for _, l := range in.Listings {
			if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO dealer_listings (dealer, product, url, updated_at) VALUES (?, ?, ?, ?)
				ON CONFLICT (dealer, product) DO UPDATE SET url = excluded.url, updated_at = excluded.updated_at`),
				l.Dealer, l.Product, l.URL, now); err != nil {
				return fmt.Errorf("listing %s/%s: %w", l.Dealer, l.Product, err)
			}
		}
		for _, f := range in.Feeds {
			if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO dealer_feeds (dealer, url, items_path, sku_field, price_field, in_stock_field, skus, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (dealer, url) DO UPDATE SET items_path = excluded.items_path, sku_field = excluded.sku_field,
				price_field = excluded.price_field, in_stock_field = excluded.in_stock_field, skus = excluded.skus, updated_at = excluded.updated_at`),
				f.Dealer, f.URL, f.ItemsPath, f.SKUField, f.PriceField, f.InStockField, f.SKUs, now); err != nil {
				return fmt.Errorf("feed %s %s: %w", f.Dealer, f.URL, err)
			}
		}
		return nil
	})
}

// SaveDealerQuotes replaces the latest quote of each (dealer, product) and appends the
// observations to the premium history, in one transaction.
func (s *Store) SaveDealerQuotes(ctx context.Context, quotes []DealerQuoteRow, obs []DealerObservationRow) error {
	if len(quotes) == 0 && len(obs) == 0 {
		return nil
	}
	return s.WithTx(ctx, func(tx *sqlx.Tx) error {
		up := tx.Rebind(`INSERT INTO dealer_quotes (dealer, product, price, in_stock, url, tiers, source, fetched_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (dealer, product) DO UPDATE SET price = excluded.price, in_stock = excluded.in_stock, url = excluded.url,
			tiers = excluded.tiers, source = excluded.source, fetched_at = excluded.fetched_at`)
		for _, q := range quotes {
			tiers := q.Tiers
			if tiers == "" {
				tiers = "[]"
			}
			if _, err := tx.ExecContext(ctx, up, q.Dealer, q.Product, q.Price.Round(4).String(), q.InStock, q.URL, tiers, q.Source, q.FetchedAt.UTC()); err != nil {
				return fmt.Errorf("quote %s/%s: %w", q.Dealer, q.Product, err)
			}
		}
		ins := tx.Rebind(`INSERT INTO dealer_quote_history (dealer, product, day, observed_at, price, spot, premium_pct) VALUES (?, ?, ?, ?, ?, ?, ?)`)
		for _, o := range obs {
			if _, err := tx.ExecContext(ctx, ins, o.Dealer, o.Product, o.Day, o.ObservedAt.UTC(), o.Price.Round(4).String(),
				o.Spot.Round(4).String(), o.PremiumPct.Round(4).String()); err != nil {
				return fmt.Errorf("observation %s/%s: %w", o.Dealer, o.Product, err)
			}
		}
		return nil
	})
}

// DealerQuotesSince lists the latest quotes fetched at or after since, every dealer and product.
func (s *Store) DealerQuotesSince(ctx context.Context, since time.Time) ([]DealerQuoteRow, error) {
	out := []DealerQuoteRow{}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT dealer, product, price, in_stock, url, tiers, source, fetched_at
		FROM dealer_quotes WHERE fetched_at >= ? ORDER BY product, dealer`), since.UTC())
	return out, err
}

// DealerObservations returns a product's premium history from the day from on, oldest first.
func (s *Store) DealerObservations(ctx context.Context, product string, from Date) ([]DealerObservationRow, error) {
	out := []DealerObservationRow{}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT dealer, product, day, observed_at, price, spot, premium_pct
		FROM dealer_quote_history WHERE product = ? AND day >= ? ORDER BY day, dealer, observed_at`), product, from)
	return out, err
}

// PruneDealerObservations deletes premium history from before the day before, and reports
// how many observations went.
func (s *Store) PruneDealerObservations(ctx context.Context, before Date) (int64, error) {
	res, err := s.db.ExecContext(ctx, s.rebind(`DELETE FROM dealer_quote_history WHERE day < ?`), before)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// InsertDealerClick records one click through to a dealer, unless the same visitor already
// clicked the same dealer and product in the same minute (inserted is then false).
func (s *Store) InsertDealerClick(ctx context.Context, c DealerClickRow) (inserted bool, err error) {
	at := c.ClickedAt
	if at.IsZero() {
		at = s.now()
	}
	res, err := s.db.ExecContext(ctx, s.rebind(`INSERT INTO dealer_clicks (dealer, product, user_id, referrer, via, clicked_at, visitor, minute)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`),
		c.Dealer, c.Product, c.UserID, c.Referrer, c.Via, at.UTC(), c.Visitor, c.Minute)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// DealerClicks lists clicks at or after since, oldest first (for tests and audits).
func (s *Store) DealerClicks(ctx context.Context, since time.Time) ([]DealerClickRow, error) {
	out := []DealerClickRow{}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT dealer, product, user_id, referrer, via, clicked_at
		FROM dealer_clicks WHERE clicked_at >= ? ORDER BY clicked_at, id`), since.UTC())
	return out, err
}

// DealerClickCounts counts clicks per dealer at or after since, most clicked first.
func (s *Store) DealerClickCounts(ctx context.Context, since time.Time) ([]DealerClickCount, error) {
	out := []DealerClickCount{}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT dealer, count(*) AS clicks FROM dealer_clicks
		WHERE clicked_at >= ? GROUP BY dealer ORDER BY clicks DESC, dealer`), since.UTC())
	return out, err
}
