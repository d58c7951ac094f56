package scenarios

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/sglang"
)

// Pos is where a value sits in its scenario file. Structs that embed a Pos
// field get it filled by the decoder, so later checks can name file:line:col.
type Pos struct {
	File string `json:"-"`
	Line int    `json:"-"`
	Col  int    `json:"-"`
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

// FieldError is one problem in a scenario file.
type FieldError struct {
	Pos Pos
	Msg string
	// derived: a consequence of another error (a required field missing,
	// perhaps because its key was misspelt); sorted last.
	derived bool
}

func (e FieldError) Error() string { return e.Pos.String() + ": " + e.Msg }

// LoadError carries every problem found in one or more files.
type LoadError struct{ Errs []FieldError }

func (e *LoadError) Error() string {
	var b strings.Builder
	for i, fe := range e.Errs {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(fe.Error())
	}
	return b.String()
}

// decoder is a strict yaml.Node → struct decoder: unknown keys, wrong kinds
// and values outside an `enum:"a,b"` tag are errors naming the valid
// choices; it keeps going after an error so one run reports them all.
type decoder struct {
	file string
	errs []FieldError
	root Pos // the document's top mapping
}

// nodeDecoder is implemented by types with their own YAML syntax.
type nodeDecoder interface {
	decodeNode(d *decoder, n *yaml.Node)
}

// extraKeys is implemented by structs that take keys beyond their own
// fields (a fault's parameters, owned by its kind or mode): decodeStruct
// hands them the pairs it does not know, then calls finish.
type extraKeys interface {
	extraKey(k, v *yaml.Node)
	finish(d *decoder, field string, fieldKeys []string)
}

var (
	extraKeysType   = reflect.TypeFor[extraKeys]()
	nodeDecoderType = reflect.TypeFor[nodeDecoder]()
	posType         = reflect.TypeFor[Pos]()
)

func (d *decoder) pos(n *yaml.Node) Pos { return Pos{File: d.file, Line: n.Line, Col: n.Column} }

func (d *decoder) errorf(n *yaml.Node, format string, a ...any) {
	d.errs = append(d.errs, FieldError{Pos: d.pos(n), Msg: fmt.Sprintf(format, a...)})
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "null"
		}
		return fmt.Sprintf("the scalar %q", n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "a document"
}

// resolve follows aliases (bounded, so a cyclic document cannot loop).
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 16; i++ {
		n = n.Alias
	}
	return n
}

// decode fills v (addressable) from n. field names the YAML key for messages.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, field, enum string) {
	n = resolve(n)
	if n == nil || n.Kind == yaml.AliasNode {
		d.errorf(n, "%s: alias nesting too deep", field)
		return
	}
	if v.CanAddr() && v.Addr().Type().Implements(nodeDecoderType) {
		v.Addr().Interface().(nodeDecoder).decodeNode(d, n)
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			return
		}
		nv := reflect.New(v.Type().Elem())
		d.decode(n, nv.Elem(), field, enum)
		v.Set(nv)
	case reflect.Struct:
		d.decodeStruct(n, v, field)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			d.errorf(n, "%s: want a list, got %s", field, kindName(n))
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, c := range n.Content {
			d.decode(c, s.Index(i), fmt.Sprintf("%s[%d]", field, i), enum)
		}
		v.Set(s)
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			d.errorf(n, "%s: want a mapping, got %s", field, kindName(n))
			return
		}
		m := reflect.MakeMap(v.Type())
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := resolve(n.Content[i]), n.Content[i+1]
			if k == nil || k.Kind != yaml.ScalarNode {
				d.errorf(n.Content[i], "%s: keys must be scalars", field)
				continue
			}
			if m.MapIndex(reflect.ValueOf(k.Value)).IsValid() {
				d.errorf(k, "%s: duplicate key %q", field, k.Value)
				continue
			}
			ev := reflect.New(v.Type().Elem()).Elem()
			d.decode(val, ev, field+"."+k.Value, "")
			m.SetMapIndex(reflect.ValueOf(k.Value), ev)
		}
		v.Set(m)
	case reflect.Interface:
		if !d.checkInts(n, field, 0) {
			return
		}
		var x any
		if err := n.Decode(&x); err != nil {
			d.errorf(n, "%s: %v", field, err)
			return
		}
		if x = normalizeYAML(x); x == nil {
			v.Set(reflect.Zero(v.Type()))
			return
		}
		v.Set(reflect.ValueOf(x))
	case reflect.String:
		if !d.scalar(n, field) {
			return
		}
		if enum != "" {
			valid := enumValues(enum)
			if !slices.Contains(valid, n.Value) {
				d.errorf(n, "%s: %q is not one of %s%s", field, n.Value, strings.Join(valid, ", "), didYouMean(n.Value, valid))
				return
			}
		}
		v.SetString(n.Value)
	case reflect.Bool:
		if !d.scalar(n, field) {
			return
		}
		switch n.Value {
		case "true", "True", "TRUE":
			v.SetBool(true)
		case "false", "False", "FALSE":
			v.SetBool(false)
		default:
			d.errorf(n, "%s: want true or false, got %q", field, n.Value)
		}
	case reflect.Int, reflect.Int64:
		if !d.scalar(n, field) {
			return
		}
		i, err := strconv.ParseInt(n.Value, 0, 64)
		if err != nil {
			d.errorf(n, "%s: want an integer, got %q", field, n.Value)
			return
		}
		v.SetInt(i)
	case reflect.Float64:
		if !d.scalar(n, field) {
			return
		}
		f, err := strconv.ParseFloat(n.Value, 64)
		if err != nil {
			d.errorf(n, "%s: want a number, got %q", field, n.Value)
			return
		}
		v.SetFloat(f)
	default:
		d.errorf(n, "%s: cannot decode into %s", field, v.Type())
	}
}

func (d *decoder) scalar(n *yaml.Node, field string) bool {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		d.errorf(n, "%s: want a scalar, got %s", field, kindName(n))
		return false
	}
	return true
}

type structField struct {
	key   string
	index int
	enum  string
}

func fieldsOf(t reflect.Type) ([]structField, int) {
	var out []structField
	posIdx := -1
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Type == posType && f.Name == "Pos" {
			posIdx = i
			continue
		}
		key := strings.Split(f.Tag.Get("yaml"), ",")[0]
		if key == "" || key == "-" {
			continue
		}
		out = append(out, structField{key: key, index: i, enum: f.Tag.Get("enum")})
	}
	return out, posIdx
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, field string) {
	fields, posIdx := fieldsOf(v.Type())
	if posIdx >= 0 {
		v.Field(posIdx).Set(reflect.ValueOf(d.pos(n)))
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "%s: want a mapping, got %s", field, kindName(n))
		return
	}
	var extra extraKeys
	if v.CanAddr() && v.Addr().Type().Implements(extraKeysType) {
		extra = v.Addr().Interface().(extraKeys)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := resolve(n.Content[i]), n.Content[i+1]
		if k == nil || k.Kind != yaml.ScalarNode {
			d.errorf(n.Content[i], "%s: keys must be scalars", field)
			continue
		}
		if field == "" && strings.HasPrefix(k.Value, ExtensionPrefix) {
			continue // a place for anchors (<<: *defaults), as compose's x- keys
		}
		idx := slices.IndexFunc(fields, func(f structField) bool { return f.key == k.Value })
		if idx < 0 && extra != nil {
			extra.extraKey(k, val)
			continue
		}
		if idx < 0 {
			keys := make([]string, len(fields))
			for j, f := range fields {
				keys[j] = f.key
			}
			sort.Strings(keys)
			d.errorf(k, "%sunknown key %q%s; valid keys: %s", prefix(field), k.Value, didYouMean(k.Value, keys), strings.Join(keys, ", "))
			continue
		}
		if seen[k.Value] {
			d.errorf(k, "%sduplicate key %q", prefix(field), k.Value)
			continue
		}
		seen[k.Value] = true
		sub := k.Value
		if field != "" {
			sub = field + "." + k.Value
		}
		d.decode(val, v.Field(fields[idx].index), sub, fields[idx].enum)
	}
	if extra != nil {
		keys := make([]string, len(fields))
		for j, f := range fields {
			keys[j] = f.key
		}
		extra.finish(d, field, keys)
	}
}

func prefix(field string) string {
	if field == "" {
		return ""
	}
	return field + ": "
}

// beyondInt64 is the message for an integer the models cannot hold.
const beyondInt64 = "beyond int64, the largest integer faultlab models (Python's int is unbounded; Mooncake's sizes are size_t)"

var intLiteral = regexp.MustCompile(`^[-+]?[0-9][0-9_]*$`)

// checkInts reports, at their lines, integers in a free-form value (a
// config file, extra_config) that do not fit int64: yaml.v3 would make
// them floats (or wrap a uint64), and SGLang's parse of a size string
// (global_segment_size: "…gb") would overflow the model. depth bounds
// the walk (aliases).
func (d *decoder) checkInts(n *yaml.Node, field string, depth int) bool {
	n = resolve(n)
	if n == nil || depth > 64 {
		return true
	}
	ok := true
	switch n.Kind {
	case yaml.ScalarNode:
		// yaml.v3 tags an integer literal beyond uint64 !!float.
		if n.Tag == "!!int" || (n.Tag == "!!float" && intLiteral.MatchString(n.Value)) {
			if _, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err != nil {
				d.errorf(n, "%s: %s: %s", field, n.Value, beyondInt64)
				ok = false
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			ok = d.checkInts(c, fmt.Sprintf("%s[%d]", field, i), depth+1) && ok
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
			if k == nil || v == nil {
				continue
			}
			sub := field + "." + k.Value
			if v.Kind == yaml.ScalarNode && v.Tag == "!!str" && sglang.BeyondInt64(k.Value, v.Value) {
				d.errorf(v, "%s: %q: %s", sub, v.Value, beyondInt64)
				ok = false
				continue
			}
			ok = d.checkInts(v, sub, depth+1) && ok
		}
	}
	return ok
}

// normalizeYAML turns yaml.v3's generic values into JSON-compatible ones
// (map[string]any, []any, int64, float64, bool, string, nil).
func normalizeYAML(x any) any {
	switch t := x.(type) {
	case map[string]any:
		for k, v := range t {
			t[k] = normalizeYAML(v)
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, v := range t {
			m[fmt.Sprint(k)] = normalizeYAML(v)
		}
		return m
	case []any:
		for i, v := range t {
			t[i] = normalizeYAML(v)
		}
		return t
	case int:
		return int64(t)
	case uint64:
		return int64(t)
	}
	return x
}

// enumValues are the valid values of an `enum:"a,b"` tag; "@engines" is
// the engine registry's names.
func enumValues(tag string) []string {
	if tag == "@engines" {
		return engine.Names()
	}
	return strings.Split(tag, ",")
}
