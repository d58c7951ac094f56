package scenarios

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/mooncake-faultlab/faultlab/faults"
)

// SchemaID is where editors find the scenario schema (the modeline in
// docs/SCENARIOS.md and in files `faultlab new` writes points here).
const SchemaID = "https://raw.githubusercontent.com/mooncake-faultlab/faultlab/main/scenarios/scenario.schema.json"

// JSONSchema is the JSON Schema (draft 2020-12) of a scenario file,
// generated from the Go types the loader decodes into (yaml and enum
// tags), so it cannot drift from what Load accepts. Types with their own
// YAML syntax (durations, sizes, codes, steps, env, by_version) are
// described by hand below, next to nothing else. The loader remains the
// authority: it also checks what a schema cannot (references between
// fields, versions, placeholders).
func JSONSchema() ([]byte, error) {
	g := &schemaGen{defs: map[string]any{}}
	root := g.of(reflect.TypeFor[Scenario]())
	s := map[string]any{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"$id":         SchemaID,
		"title":       "faultlab scenario",
		"description": "One field failure of SGLang HiCache + Mooncake: world, config, faults, steps, expected outcome, remedy. See docs/SCENARIOS.md.",
		"$ref":        root["$ref"],
		"$defs":       g.defs,
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

type schemaGen struct{ defs map[string]any }

var (
	durationSchema = map[string]any{"type": "string", "pattern": `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`,
		"description": "a duration with a unit: 100ms, 30s, 10m"}
	byteSizeSchema = map[string]any{"oneOf": []any{
		map[string]any{"type": "integer", "minimum": 0},
		map[string]any{"type": "string", "pattern": `^\s*[0-9]+\s*(B|KiB|MiB|GiB|TiB|KB|MB|GB|TB)?\s*$`},
	}, "description": "bytes, or an integer with a unit: " + ByteUnits}
	codeSchema = map[string]any{"oneOf": []any{
		map[string]any{"type": "integer"},
		map[string]any{"type": "array", "items": map[string]any{"oneOf": []any{
			map[string]any{"type": "integer"},
			map[string]any{"type": "array", "items": map[string]any{"type": "integer"}, "minItems": 2},
		}}},
	}, "description": "one code every call returned, or exactly these codes in call order ([] = never called); an element [a, b] is a position where real returns a or b by a race (the models return a)"}
	envSchema = map[string]any{"type": "object", "additionalProperties": map[string]any{"type": []any{"string", "number", "boolean", "null"}},
		"description": "process environment; null (in a remedy) unsets"}
)

// stepSchema: a mapping with exactly one action key.
func (g *schemaGen) stepSchema() map[string]any {
	pageArgs := map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{
		"node":  map[string]any{"type": "string"},
		"pages": map[string]any{"oneOf": []any{map[string]any{"type": "integer", "minimum": 1, "maximum": 65536}, map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "minItems": 1}}},
		"want":  map[string]any{},
	}}
	nodeOrArgs := map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "null"}, pageArgs}}
	var one []any
	for _, a := range StepActions {
		v := any(nodeOrArgs)
		switch a {
		case StepSleep:
			v = durationSchema
		case StepSet, StepGet, StepExists:
			v = pageArgs
		case StepCall:
			v = map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "object", "additionalProperties": false,
				"required": []any{"method"}, "properties": map[string]any{"node": map[string]any{"type": "string"}, "method": map[string]any{"type": "string"}}}}}
		case StepPut:
			// key (put) or keys (batch_put_from), one of them.
			v = map[string]any{"type": "object", "additionalProperties": false, "required": []any{"size"},
				"oneOf": []any{map[string]any{"required": []any{"key"}}, map[string]any{"required": []any{"keys"}}},
				"properties": map[string]any{
					"node":          map[string]any{"type": "string"},
					"key":           map[string]any{"type": "string", "minLength": 1},
					"keys":          map[string]any{"type": "array", "minItems": 1, "items": map[string]any{"type": "string", "minLength": 1}},
					"size":          byteSizeSchema,
					"skip_existing": map[string]any{"type": "boolean"},
					"unregistered":  map[string]any{"type": "boolean"},
					"allocator":     map[string]any{"enum": anys(BufferAllocators)},
					"want":          map[string]any{"oneOf": []any{map[string]any{"type": "integer"}, map[string]any{"type": "array", "items": map[string]any{"type": "integer"}}}},
				}}
		case StepBench:
			v = benchSchema()
		case StepFetch:
			v = map[string]any{"type": "object", "additionalProperties": false, "required": []any{"key"}, "properties": map[string]any{
				"node":   map[string]any{"type": "string"},
				"key":    map[string]any{"type": "string", "minLength": 1},
				"method": map[string]any{"enum": anys(FetchMethods)},
				"want":   map[string]any{"type": "integer"},
				// batch_get_into's buffer.
				"size":         byteSizeSchema,
				"unregistered": map[string]any{"type": "boolean"},
				"allocator":    map[string]any{"enum": anys(BufferAllocators)},
			}}
		case StepTE:
			ops := anys(TEOps)
			v = map[string]any{"type": "object", "additionalProperties": false, "required": []any{"op"}, "properties": map[string]any{
				"node":    map[string]any{"type": "string"},
				"op":      map[string]any{"enum": ops},
				"peer":    map[string]any{"type": "string"},
				"size":    byteSizeSchema,
				"batch":   map[string]any{"type": "boolean"},
				"entries": map[string]any{"type": "integer", "minimum": 2},
				"memory":  map[string]any{"enum": []any{TEMemoryHost, TEMemoryGPU}},
				"send":    map[string]any{"enum": []any{TEStrayHTTP}},
				"raise":   map[string]any{"type": "boolean"},
				"pd":      map[string]any{"type": "boolean"},
				"want":    map[string]any{"type": "integer"},
			}}
		}
		one = append(one, map[string]any{"type": "object", "additionalProperties": false, "required": []any{a},
			"properties": map[string]any{a: v}})
	}
	return map[string]any{"oneOf": one, "description": "one action: " + strings.Join(StepActions, ", ")}
}

func (g *schemaGen) of(t reflect.Type) map[string]any {
	switch t {
	case reflect.TypeFor[Duration]():
		return durationSchema
	case reflect.TypeFor[ByteSize]():
		return byteSizeSchema
	case reflect.TypeFor[CodeExpect]():
		return codeSchema
	case reflect.TypeFor[Env]():
		return envSchema
	case reflect.TypeFor[Step]():
		return g.stepSchema()
	case reflect.TypeFor[ByVersion]():
		return map[string]any{"type": "object", "description": "version constraint → expect overrides, in file order",
			"additionalProperties": g.of(reflect.TypeFor[Expect]())}
	case reflect.TypeFor[BySGLang]():
		return map[string]any{"type": "object", "description": "SGLang release constraint → expect overrides, applied before by_version",
			"additionalProperties": g.of(reflect.TypeFor[Expect]())}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.of(t.Elem())
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int64:
		return map[string]any{"type": "integer"}
	case reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": g.of(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.of(t.Elem())}
	case reflect.Struct:
		name := t.Name()
		if _, ok := g.defs[name]; !ok {
			g.defs[name] = map[string]any{} // placeholder: recursive types (HostPool.Draft)
			props := map[string]any{}
			for _, f := range mustFields(t) {
				sf := t.Field(f.index)
				p := g.of(sf.Type)
				if f.enum != "" {
					var vs []any
					for _, v := range enumValues(f.enum) {
						vs = append(vs, v)
					}
					p = map[string]any{"enum": vs}
					if sf.Type.Kind() == reflect.Slice {
						p = map[string]any{"type": "array", "items": p}
					}
				}
				if t == reflect.TypeFor[FaultSpec]() {
					// From the fault registry, like the loader's checks: the
					// kinds, every mode (link modes include refuse and
					// blackhole) and the process actions.
					switch f.key {
					case "kind":
						p = map[string]any{"enum": faultKinds()}
					case "mode":
						// every kind's (faults.KindModes).
						p = map[string]any{"enum": anys(faults.KindModes())}
					case "action":
						// process and container actions (each kind checks its own).
						acts := append([]string(nil), faults.Actions...)
						for _, a := range faults.ContainerActionNames {
							if !slices.Contains(acts, a) {
								acts = append(acts, a)
							}
						}
						p = map[string]any{"enum": anys(acts)}
					}
				}
				props[f.key] = p
			}
			if t == reflect.TypeFor[FaultSpec]() {
				// The parameters every kind and mode owns, by their tags.
				for _, pf := range faults.AllParamFields() {
					pt := pf.Type // int64, string
					if pf.IsDuration() {
						pt = reflect.TypeFor[Duration]()
					}
					props[pf.Name] = g.of(pt)
				}
			}
			def := map[string]any{"type": "object", "additionalProperties": false, "properties": props}
			if t == reflect.TypeFor[Scenario]() {
				def["required"] = []any{"name", "steps", "expect"}
				def["patternProperties"] = map[string]any{"^" + ExtensionPrefix: map[string]any{"description": "ignored by the loader: a place for anchors that merge keys (<<: *name) refer to"}}
			}
			if t == reflect.TypeFor[FaultSpec]() {
				// Each kind with actions takes only its own.
				byKind := func(k faults.Kind, acts []string) map[string]any {
					return map[string]any{
						"if":   map[string]any{"properties": map[string]any{"kind": map[string]any{"const": string(k)}}, "required": []any{"kind"}},
						"then": map[string]any{"properties": map[string]any{"action": map[string]any{"enum": anys(acts)}}},
					}
				}
				def["allOf"] = append([]any{byKind(faults.Process, faults.Actions), byKind(faults.Container, faults.ContainerActionNames)}, ownedKeys(mustFields(t))...)
			}
			g.defs[name] = def
		}
		return map[string]any{"$ref": "#/$defs/" + name}
	}
	return map[string]any{}
}

// ownedKeys: a fault takes the common keys and its kind's or mode's
// parameters only, as the loader checks.
func ownedKeys(common []structField) []any {
	var out []any
	rule := func(when map[string]any, params any) {
		keys := []any{}
		for _, f := range common {
			keys = append(keys, f.key)
		}
		for _, p := range faults.ParamFields(params) {
			keys = append(keys, p.Name)
		}
		out = append(out, map[string]any{
			"if":   map[string]any{"properties": when, "required": slices.Sorted(maps.Keys(when))},
			"then": map[string]any{"propertyNames": map[string]any{"enum": keys}},
		})
	}
	for _, k := range faults.KindNames() {
		kind := map[string]any{"const": k}
		if zero, known := faults.ParamsFor(faults.Kind(k), ""); known {
			rule(map[string]any{"kind": kind}, zero)
			continue
		}
		for _, m := range faults.LinkModes() { // a kind whose parameters are its mode's
			if zero, known := faults.ParamsFor(faults.Kind(k), m); known {
				rule(map[string]any{"kind": kind, "mode": map[string]any{"const": m}}, zero)
			}
		}
	}
	return out
}

func mustFields(t reflect.Type) []structField {
	fs, _ := fieldsOf(t)
	return fs
}

func faultKinds() []any { return anys(faults.KindNames()) }

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
