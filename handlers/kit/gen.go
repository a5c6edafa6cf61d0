package kit

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The OpenAPI schemas of bodies are generated from the wire structs the handlers encode and
// decode, so the document cannot describe a field the code does not have. A struct field
// becomes a property named by its json tag; how it is described comes from two more tags:
//
//	doc:"…"     its description; {Name} is replaced by the constant Name (see Consts)
//	schema:"…"  comma-separated facts:
//	    optional            not required (omitempty implies it)
//	    nullable / notnull  force null allowed or not (a pointer is nullable unless omitempty)
//	    format=F            date, date-time, uri, … (time.Time is date-time already)
//	    enum=a|b  enum=N    the allowed values, listed or named in Consts
//	    min=  max=  minLength=  maxLength=  minItems=  maxItems=  default=
//	    exclusiveMin        the minimum itself is not allowed
//	                        a number, or the name of a constant in Consts
//	    permetal            a map[string]T keyed by metal: one required property per metal
//	    keys=a|b            a map[string]T with exactly these keys
//	    ref=Name            refer to the named component instead of inlining the type
//	    use=Name            the Schema held by the constant Name (a shape Go cannot say: oneOf)
//	    any                 no schema at all (a free-form value)
//	    type=T              the JSON type when the Go type does not say it (string, integer, …)
//
// A blank field `_ struct{} schema:"open"` marks a struct whose object admits other
// properties; objects are closed (additionalProperties: false) otherwise. The blank field's
// tag may also carry facts of the object itself (minProperties=1), or allOptional: no
// property required (a PATCH body sharing its fields with a create body by embedding).
//
// Limits are named, not written in the tag: the constant the validator checks is the one the
// document states, so the two cannot drift.

// Consts are the named values schema tags may refer to: limits, enums, numbers in docs.
type Consts map[string]any

// Metals lists the metal identifiers in the order the document shows them.
var metalNames = []string{"gold", "silver", "platinum", "palladium"}

// Gen generates schemas with the constants of an area.
type Gen struct {
	Consts Consts
	// Open makes objects admit other properties unless a struct says `schema:"closed"`.
	Open bool
}

// SchemaOf generates the schema of v's type (v is a value or a nil pointer of the type).
func SchemaOf(v any, consts ...Consts) Schema {
	g := Gen{Consts: Consts{}}
	for _, c := range consts {
		for k, x := range c {
			g.Consts[k] = x
		}
	}
	return g.Of(v)
}

// OpenSchemaOf is SchemaOf with objects open to other properties (additionalProperties
// unstated) unless a struct's blank field says `schema:"closed"`.
func OpenSchemaOf(v any, consts ...Consts) Schema {
	g := Gen{Consts: Consts{}, Open: true}
	for _, c := range consts {
		for k, x := range c {
			g.Consts[k] = x
		}
	}
	return g.Of(v)
}

// Of generates the schema of v's type.
func (g Gen) Of(v any) Schema {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return g.typ(t, nil)
}

// OneOf is a value of one of several shapes (a number or its exact text, a token or an object).
func OneOf(desc string, shapes ...Schema) Schema {
	s := Schema{"oneOf": shapes}
	if desc != "" {
		s["description"] = desc
	}
	return s
}

// Ref refers to a named component schema.
func Ref(name string) Schema { return Schema{"$ref": "#/components/schemas/" + name} }

var (
	numType  = reflect.TypeOf(Num{})
	timeType = reflect.TypeOf(time.Time{})
	rawType  = reflect.TypeOf(json.RawMessage{})
)

type tagFacts map[string]string

func parseTag(s string) tagFacts {
	f := tagFacts{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		f[k] = v
	}
	return f
}

func (g Gen) konst(name string) any {
	v, ok := g.Consts[name]
	if !ok {
		panic(fmt.Sprintf("kit: schema tag names %q, which is not among the constants", name))
	}
	return v
}

// number reads a limit: a literal or a constant's name.
func (g Gen) number(s string) any {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f
	}
	return g.konst(s)
}

// Doc substitutes {Name} in a description with the constants' values.
func (g Gen) Doc(s string) string {
	if !strings.Contains(s, "{") {
		return s
	}
	for k, v := range g.Consts {
		s = strings.ReplaceAll(s, "{"+k+"}", fmt.Sprint(v))
	}
	return s
}

// typ is the schema of t; facts are the field's tag facts (nil at the top).
func (g Gen) typ(t reflect.Type, facts tagFacts) Schema {
	if _, ok := facts["any"]; ok {
		return Schema{}
	}
	if name, ok := facts["ref"]; ok {
		_, omit := facts["omitempty"]
		_, null := facts["nullable"]
		if (t.Kind() == reflect.Pointer && !omit) || null {
			// OpenAPI 3.0 ignores nullable beside $ref: wrap it.
			return Schema{"type": "object", "allOf": []Schema{Ref(name)}, "nullable": true}
		}
		return Ref(name)
	}
	if name, ok := facts["use"]; ok {
		out := Schema{}
		for k, v := range g.konst(name).(Schema) {
			out[k] = v
		}
		return out
	}
	nullable := false
	for t.Kind() == reflect.Pointer {
		nullable = true
		t = t.Elem()
	}
	var s Schema
	switch {
	case t == numType:
		s = Schema{"type": "number", "format": "double"}
	case t == timeType:
		s = Schema{"type": "string", "format": "date-time"}
	case t == rawType:
		s = Schema{}
	default:
		switch t.Kind() {
		case reflect.String:
			s = Schema{"type": "string"}
		case reflect.Bool:
			s = Schema{"type": "boolean"}
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			s = Schema{"type": "integer"}
		case reflect.Float32, reflect.Float64:
			s = Schema{"type": "number", "format": "double"}
		case reflect.Slice, reflect.Array:
			s = Schema{"type": "array", "items": g.typ(t.Elem(), itemFacts(facts))}
		case reflect.Map:
			keys := facts["keys"]
			if _, ok := facts["permetal"]; ok {
				keys = "metals"
			}
			if keys != "" {
				names := metalNames
				if keys != "metals" {
					names = strings.Split(keys, "|")
				}
				props := Schema{}
				for _, m := range names {
					props[m] = g.typ(t.Elem(), itemFacts(facts))
				}
				s = Schema{"type": "object", "properties": props, "required": names}
				if !g.Open {
					s["additionalProperties"] = false
				}
			} else {
				s = Schema{"type": "object", "additionalProperties": g.typ(t.Elem(), itemFacts(facts))}
			}
		case reflect.Struct:
			s = g.object(t)
		case reflect.Interface:
			s = Schema{}
		default:
			panic(fmt.Sprintf("kit: no schema for %s", t))
		}
	}
	g.apply(s, facts, nullable)
	return s
}

// itemFacts are the facts of a field that describe its items: items.enum=…, items.format=….
func itemFacts(facts tagFacts) tagFacts {
	out := tagFacts{}
	for k, v := range facts {
		if rest, ok := strings.CutPrefix(k, "items."); ok {
			out[rest] = v
		}
	}
	return out
}

func (g Gen) apply(s Schema, facts tagFacts, nullable bool) {
	if _, ok := facts["omitempty"]; ok {
		nullable = false
	}
	if _, ok := facts["nullable"]; ok {
		nullable = true
	}
	if _, ok := facts["notnull"]; ok {
		nullable = false
	}
	if nullable {
		s["nullable"] = true
	}
	defer func() {
		// enumNull: null is one of the values (OpenAPI 3.0 wants it listed beside nullable).
		if _, ok := facts["enumNull"]; ok {
			var vals []any
			switch e := s["enum"].(type) {
			case []string:
				for _, v := range e {
					vals = append(vals, v)
				}
			case []any:
				vals = append(vals, e...)
			}
			s["enum"] = append(vals, nil)
		}
	}()
	for k, v := range facts {
		switch k {
		case "format", "pattern":
			s[k] = v
		case "type":
			s["type"] = v
			delete(s, "format")
		case "min":
			s["minimum"] = g.number(v)
		case "max":
			s["maximum"] = g.number(v)
		case "exclusiveMin":
			s["exclusiveMinimum"] = true
		case "minLength", "maxLength", "minItems", "maxItems", "minProperties":
			s[k] = g.number(v)
		case "default":
			if v == "true" || v == "false" {
				s[k] = v == "true"
			} else if _, known := g.Consts[v]; known {
				s[k] = g.konst(v)
			} else if _, err := strconv.ParseFloat(v, 64); err == nil {
				s[k] = g.number(v)
			} else {
				s[k] = v
			}
		case "enumNull":
			// below, once enum is set
		case "enum":
			switch {
			case v == "metals":
				s["enum"] = metalNames
			case strings.Contains(v, "|"):
				s["enum"] = strings.Split(v, "|")
			default:
				if _, ok := g.Consts[v]; ok {
					s["enum"] = g.konst(v)
				} else {
					s["enum"] = []string{v}
				}
			}
		}
	}
}

// object is the schema of a struct: its json fields, embedded structs flattened.
func (g Gen) object(t reflect.Type) Schema {
	props, req := Schema{}, []string{}
	open := g.Open
	var objFacts tagFacts
	var fields func(t reflect.Type)
	fields = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if f.Name == "_" {
				objFacts = parseTag(f.Tag.Get("schema"))
				if _, ok := objFacts["open"]; ok {
					open = true
				}
				if _, ok := objFacts["closed"]; ok {
					open = false
				}
				continue
			}
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" {
				ft := f.Type
				for ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					fields(ft)
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			facts := parseTag(f.Tag.Get("schema"))
			if strings.Contains(","+opts+",", ",omitempty,") {
				facts["omitempty"] = ""
			}
			s := g.typ(f.Type, facts)
			if d := f.Tag.Get("doc"); d != "" && s["$ref"] == nil { // beside $ref it would be ignored
				s["description"] = g.Doc(d)
			}
			props[name] = s
			_, optional := facts["optional"]
			_, omit := facts["omitempty"]
			if !optional && !omit {
				req = append(req, name)
			}
		}
	}
	fields(t)
	sort.Strings(req)
	s := Schema{"type": "object", "properties": props}
	if len(req) > 0 {
		s["required"] = req
	}
	if !open {
		s["additionalProperties"] = false
	}
	if _, ok := objFacts["allOptional"]; ok {
		delete(s, "required")
	}
	delete(objFacts, "open")
	delete(objFacts, "closed")
	delete(objFacts, "allOptional")
	g.apply(s, objFacts, false)
	return s
}

// PatchOf is the schema of a PATCH body: v's fields, none required, at least one present.
func PatchOf(v any, consts ...Consts) Schema {
	s := SchemaOf(v, consts...)
	delete(s, "required")
	s["minProperties"] = 1
	return s
}

// PathParam is a string path parameter of at most maxLength characters (an id or a slug).
func PathParam(name, description string, maxLength int, example string) Param {
	return Param{Name: name, In: "path", Required: true, Description: description, Schema: Schema{"type": "string", "maxLength": maxLength}, Example: example}
}
