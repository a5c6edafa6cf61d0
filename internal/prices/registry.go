package prices

import (
	"fmt"
	"net/http"
	"strings"
)

// Keys carries the provider credentials and optional endpoint overrides, read
// once from the environment by the caller.
type Keys struct {
	MetalsDev     string // OUNCE_METALSDEV_KEY
	MetalpriceAPI string // OUNCE_METALPRICEAPI_KEY
	GoldAPI       string // OUNCE_GOLDAPI_KEY
	// BaseURLs overrides a provider's endpoint by registry name (tests, proxies,
	// regional mirrors such as MetalpriceAPI's EU host).
	BaseURLs map[string]string
}

// ProviderNames lists the registry names New accepts, keyless first, which is
// the order a default configuration should try them in.
var ProviderNames = []string{GoldAPIComName, MetalsDevName, MetalpriceAPIName, GoldAPIIOName}

// New builds the named provider. A keyed provider without its key is an error
// naming the environment variable, so a misconfiguration shows at start-up
// rather than as a stream of 401s.
func New(name string, cfg Keys, client *http.Client) (Provider, error) {
	base := cfg.BaseURLs[name]
	switch name {
	case GoldAPIComName:
		return NewGoldAPICom(base, client), nil
	case MetalsDevName:
		if cfg.MetalsDev == "" {
			return nil, fmt.Errorf("price provider %s needs %s", name, MetalsDevKeyEnv)
		}
		return NewMetalsDev(base, cfg.MetalsDev, client), nil
	case MetalpriceAPIName:
		if cfg.MetalpriceAPI == "" {
			return nil, fmt.Errorf("price provider %s needs %s", name, MetalpriceAPIKeyEnv)
		}
		return NewMetalpriceAPI(base, cfg.MetalpriceAPI, client), nil
	case GoldAPIIOName:
		if cfg.GoldAPI == "" {
			return nil, fmt.Errorf("price provider %s needs %s", name, GoldAPIIOKeyEnv)
		}
		return NewGoldAPIIO(base, cfg.GoldAPI, client), nil
	}
	return nil, fmt.Errorf("unknown price provider %q: want one of %s", name, strings.Join(ProviderNames, ", "))
}
