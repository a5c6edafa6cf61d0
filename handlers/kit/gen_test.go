package kit

import (
	"encoding/json"
	"testing"
	"time"
)

type genInner struct {
	_    struct{} `schema:"open"`
	Name string   `json:"name" doc:"A name."`
}

type genWire struct {
	ID       int64              `json:"id" schema:"min=1,max=MaxID"`
	Price    Num                `json:"price" doc:"At most {MaxID}."`
	Spot     *Num               `json:"spot"`
	When     time.Time          `json:"when"`
	Day      *string            `json:"day" schema:"format=date"`
	Metal    string             `json:"metal" schema:"enum=metals"`
	Kind     string             `json:"kind" schema:"optional,enum=a|b,default=a"`
	Note     *string            `json:"note,omitempty"`
	Tags     []string           `json:"tags" schema:"items.enum=x|y"`
	ByMetal  map[string]Num     `json:"by_metal" schema:"permetal"`
	Inner    genInner           `json:"inner"`
	Others   map[string]float64 `json:"others"`
	Linked   *genInner          `json:"linked" schema:"ref=Inner"`
	Skipped  string             `json:"-"`
	internal string
}

func TestSchemaOfFollowsTheStructAndItsTags(t *testing.T) {
	got := SchemaOf(genWire{}, Consts{"MaxID": 99})
	b, _ := json.Marshal(got)
	var s map[string]any
	_ = json.Unmarshal(b, &s)
	props := s["properties"].(map[string]any)
	prop := func(k string) map[string]any { return props[k].(map[string]any) }
	if s["additionalProperties"] != false {
		t.Error("objects are closed unless the struct says open")
	}
	req := map[string]bool{}
	for _, r := range s["required"].([]any) {
		req[r.(string)] = true
	}
	for _, k := range []string{"id", "price", "spot", "when", "day", "metal", "tags", "by_metal", "inner", "others", "linked"} {
		if !req[k] {
			t.Errorf("%s should be required", k)
		}
	}
	if req["kind"] || req["note"] || props["Skipped"] != nil || props["internal"] != nil || props["-"] != nil {
		t.Errorf("optional, omitempty, json:\"-\" and unexported fields: required %v, props %v", s["required"], props)
	}
	if p := prop("id"); p["type"] != "integer" || p["minimum"] != 1.0 || p["maximum"] != 99.0 {
		t.Errorf("id: %v (limits named by constant)", p)
	}
	if p := prop("price"); p["type"] != "number" || p["format"] != "double" || p["description"] != "At most 99." || p["nullable"] != nil {
		t.Errorf("price: %v", p)
	}
	if p := prop("spot"); p["nullable"] != true || p["format"] != "double" {
		t.Errorf("a pointer is nullable: %v", p)
	}
	if p := prop("note"); p["nullable"] != nil {
		t.Errorf("an omitempty pointer is absent, not null: %v", p)
	}
	if p := prop("when"); p["format"] != "date-time" {
		t.Errorf("when: %v", p)
	}
	if p := prop("day"); p["format"] != "date" || p["nullable"] != true {
		t.Errorf("day: %v", p)
	}
	if p := prop("metal"); len(p["enum"].([]any)) != 4 {
		t.Errorf("metal: %v", p)
	}
	if p := prop("kind"); p["default"] != "a" || len(p["enum"].([]any)) != 2 {
		t.Errorf("kind: %v", p)
	}
	if p := prop("tags"); p["items"].(map[string]any)["enum"] == nil {
		t.Errorf("tags: %v", p)
	}
	if p := prop("by_metal"); len(p["required"].([]any)) != 4 || p["properties"].(map[string]any)["silver"] == nil {
		t.Errorf("by_metal: %v", p)
	}
	if p := prop("inner"); p["additionalProperties"] != nil || p["properties"].(map[string]any)["name"].(map[string]any)["description"] != "A name." {
		t.Errorf("inner (open): %v", p)
	}
	if p := prop("others"); p["additionalProperties"].(map[string]any)["type"] != "number" {
		t.Errorf("others: %v", p)
	}
	if p := prop("linked"); p["nullable"] != true || p["allOf"].([]any)[0].(map[string]any)["$ref"] != "#/components/schemas/Inner" {
		t.Errorf("a nullable reference wraps the $ref: %v", p)
	}
}

func TestSchemaOfPanicsOnAnUnknownConstant(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("a tag naming no constant must fail loudly, not document nothing")
		}
	}()
	SchemaOf(genWire{})
}

func TestPatchOfRequiresNothingButOneField(t *testing.T) {
	s := PatchOf(genInner{})
	if _, ok := s["required"]; ok || s["minProperties"] != 1 {
		t.Fatalf("%v", s)
	}
}
