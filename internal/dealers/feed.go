package dealers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// FeedItem is one mapped item of a JSON price feed.
type FeedItem struct {
	SKU     string
	Product string
	Price   decimal.Decimal
	InStock bool
}

// maxFeedItems bounds what one feed may contribute.
const maxFeedItems = 5000

// ParseFeed reads a JSON price list through its field mapping. Items whose SKU is not mapped
// are skipped; a mapped item with an unreadable price is an error naming it, since the
// mapping promised a price there.
func ParseFeed(body []byte, f FeedConfig) ([]FeedItem, error) {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var doc any
	if err := d.Decode(&doc); err != nil {
		return nil, fmt.Errorf("feed is not JSON: %w", err)
	}
	items, ok := lookup(doc, f.ItemsPath).([]any)
	if !ok {
		where := f.ItemsPath
		if where == "" {
			where = "the document"
		}
		return nil, fmt.Errorf("items_path %q: %s is not an array", f.ItemsPath, where)
	}
	if len(items) > maxFeedItems {
		items = items[:maxFeedItems]
	}
	var out []FeedItem
	for i, it := range items {
		sku := str(lookup(it, f.SKUField))
		pid, mapped := f.SKUs[sku]
		if sku == "" || !mapped {
			continue
		}
		price, ok := parsePrice(lookup(it, f.PriceField))
		if !ok {
			return nil, fmt.Errorf("item %d (sku %s): %s is not a price", i, sku, f.PriceField)
		}
		stock := true
		if f.InStockField != "" {
			stock = truthy(lookup(it, f.InStockField))
		}
		out = append(out, FeedItem{SKU: sku, Product: pid, Price: price, InStock: stock})
	}
	return out, nil
}

// lookup follows a dotted path ("data.items", "pricing.0.price") into decoded JSON.
func lookup(v any, path string) any {
	if path == "" {
		return v
	}
	for _, part := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[part]
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// truthy reads an availability field: true, a positive count, or words like "in stock".
func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case json.Number:
		f, err := x.Float64()
		return err == nil && f > 0
	case string:
		s := strings.ToLower(strings.TrimSpace(x))
		switch s {
		case "true", "yes", "y", "1", "in stock", "instock", "in_stock", "available":
			return true
		}
		return inStock(s)
	}
	return false
}

// validPath is a dotted path of plain keys.
func validPath(p string) bool {
	if p == "" || len(p) > 200 {
		return false
	}
	for _, part := range strings.Split(p, ".") {
		if part == "" {
			return false
		}
	}
	return true
}
