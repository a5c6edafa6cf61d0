package web_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The contract baseline: every path, operation, parameter, status and schema property of
// /openapi.json (type, format, required-ness, nullability, limits, enums, closedness), with
// descriptions, summaries and examples left out — they may be reworded freely. Schemas are
// generated from the wire structs, so this is what proves a change to a struct or to the
// generator changes only what it means to.
//
// A deliberate change to the contract (a new route or field) rewrites the baseline:
//
//	OUNCE_UPDATE_CONTRACT=1 go test -count=1 -run TestOpenAPIContractBaseline ./web/
//
// and the diff of web/testdata/openapi_contract.txt shows the change in review.
// OUNCE_CONTRACT_DOC=/path/openapi.json compares a saved document (a served one) instead.

const contractBaseline = "testdata/openapi_contract.txt"

func TestOpenAPIContractBaseline(t *testing.T) {
	var doc map[string]any
	if p := os.Getenv("OUNCE_CONTRACT_DOC"); p != "" {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
	} else {
		e := newEnv(t, sqliteStore(t), withMarket(t))
		doc = e.do(mustReq("GET", "/openapi.json")).JSON(t)
	}
	got := contractLines(doc)
	if os.Getenv("OUNCE_UPDATE_CONTRACT") == "1" {
		if err := os.MkdirAll(filepath.Dir(contractBaseline), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(contractBaseline, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(contractBaseline)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	var gone, added []string
	for _, l := range want {
		if _, ok := slices.BinarySearch(got, l); !ok {
			gone = append(gone, l)
		}
	}
	for _, l := range got {
		if _, ok := slices.BinarySearch(want, l); !ok {
			added = append(added, l)
		}
	}
	if len(gone)+len(added) > 0 {
		t.Errorf("openapi.json changed meaning (%d lines gone, %d new); if deliberate, rerun with OUNCE_UPDATE_CONTRACT=1", len(gone), len(added))
		for _, l := range gone {
			t.Log("- " + l)
		}
		for _, l := range added {
			t.Log("+ " + l)
		}
	}
}

// contractLines flattens the document into sorted lines, one per operation, parameter,
// response and schema node, each naming its place. References are followed so a schema
// moved between a component and a route reads the same.
func contractLines(doc map[string]any) []string {
	comps, _ := doc["components"].(map[string]any)
	schemas, _ := comps["schemas"].(map[string]any)
	var out []string
	var walk func(at string, s any, depth int)
	walk = func(at string, s any, depth int) {
		m, ok := s.(map[string]any)
		if !ok || depth > 12 {
			return
		}
		if ref, ok := m["$ref"].(string); ok {
			walk(at, schemas[strings.TrimPrefix(ref, "#/components/schemas/")], depth+1)
			return
		}
		var facts []string
		for _, k := range []string{"type", "format", "nullable", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
			"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "pattern", "enum", "default", "const", "uniqueItems"} {
			if v, ok := m[k]; ok {
				j, _ := json.Marshal(v)
				facts = append(facts, k+"="+string(j))
			}
		}
		switch ap := m["additionalProperties"].(type) {
		case bool:
			facts = append(facts, fmt.Sprintf("additionalProperties=%v", ap))
		case map[string]any:
			facts = append(facts, "additionalProperties=schema")
			walk(at+".*", ap, depth+1)
		}
		if req, ok := m["required"].([]any); ok {
			names := make([]string, 0, len(req))
			for _, r := range req {
				names = append(names, fmt.Sprint(r))
			}
			sort.Strings(names)
			facts = append(facts, "required="+strings.Join(names, ","))
		}
		out = append(out, at+" "+strings.Join(facts, " "))
		if props, ok := m["properties"].(map[string]any); ok {
			for k, v := range props {
				walk(at+"."+k, v, depth+1)
			}
		}
		walk(at+"[]", m["items"], depth+1)
		for _, k := range []string{"oneOf", "anyOf", "allOf"} {
			if list, ok := m[k].([]any); ok {
				for i, v := range list {
					walk(fmt.Sprintf("%s|%s%d", at, k, i), v, depth+1)
				}
			}
		}
	}
	paths, _ := doc["paths"].(map[string]any)
	for p, item := range paths {
		for method, o := range item.(map[string]any) {
			op, _ := o.(map[string]any)
			at := strings.ToUpper(method) + " " + p
			sec, _ := json.Marshal(op["security"])
			out = append(out, fmt.Sprintf("%s operationId=%v tags=%v security=%s", at, op["operationId"], op["tags"], sec))
			for _, pr := range asList(op["parameters"]) {
				pm := pr.(map[string]any)
				pat := fmt.Sprintf("%s param %v:%v", at, pm["in"], pm["name"])
				out = append(out, fmt.Sprintf("%s required=%v", pat, pm["required"]))
				walk(pat, pm["schema"], 0)
			}
			if rb, ok := op["requestBody"].(map[string]any); ok {
				out = append(out, fmt.Sprintf("%s body required=%v", at, rb["required"]))
				for ct, c := range rb["content"].(map[string]any) {
					walk(at+" body "+ct, c.(map[string]any)["schema"], 0)
				}
			}
			for status, r := range op["responses"].(map[string]any) {
				rat := at + " " + status
				content, _ := r.(map[string]any)["content"].(map[string]any)
				if len(content) == 0 {
					out = append(out, rat+" no body")
				}
				for ct, c := range content {
					walk(rat+" "+ct, c.(map[string]any)["schema"], 0)
				}
			}
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

func asList(v any) []any { l, _ := v.([]any); return l }
