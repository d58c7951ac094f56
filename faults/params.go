package faults

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// A kind's or link mode's parameters are a struct it declares next to it
// (mode_latency.go: LatencyParams), one field per YAML key, its tags saying
// everything the rest of faultlab needs — as toxiproxy's toxics own their
// typed, tagged attributes:
//
//	yaml:"latency"           the YAML key (and the toxiproxy-facing name)
//	doc:"added delay (> 0)"  the docs tables, `faultlab list --faults`, the JSON Schema
//	gen:"10ms,200ms,2s"      explore's draws (one picked uniformly; "" = unset;
//	                         a choice cannot hold a comma)
//	trace:"latency=%s"       printed in Fault.String (traces) when non-zero
//	                         (a string's format takes it as is: %q quotes it)
//	scale:"rate"             a per-second rate (the fake engine divides it by its time scale)
//
// Field types: time.Duration (written with a unit: 30s, 100ms), int64 and
// string (any YAML scalar, taken as written; "" = unset). Durations are
// Mooncake time; the fake engine scales every one of them.

// ParamField is one parameter of a kind or mode, read from its tags.
type ParamField struct {
	Name  string // YAML key
	Doc   string
	Gen   []string // explore's choices, as written in YAML ("" = unset)
	Trace string   // format in Fault.String; "" = not traced
	Rate  bool     // a per-second rate
	Type  reflect.Type
	index int
}

// IsDuration reports whether the field is a duration (written with a unit).
func (p ParamField) IsDuration() bool { return p.Type == durationType }

// IsString reports whether the field is a string (taken as written).
func (p ParamField) IsString() bool { return p.Type.Kind() == reflect.String }

var durationType = reflect.TypeFor[time.Duration]()

// ParamFields lists the fields of a params struct (a zero value or any
// value of it) in declaration order; nil for nil.
func ParamFields(params any) []ParamField {
	if params == nil {
		return nil
	}
	t := reflect.TypeOf(params)
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("faults: params %s is not a struct", t))
	}
	out := make([]ParamField, 0, t.NumField())
	for i := range t.NumField() {
		sf := t.Field(i)
		name := sf.Tag.Get("yaml")
		if name == "" || !sf.IsExported() {
			panic(fmt.Sprintf("faults: params %s.%s has no yaml tag", t, sf.Name))
		}
		if k := sf.Type.Kind(); sf.Type != durationType && k != reflect.Int64 && k != reflect.String {
			panic(fmt.Sprintf("faults: params %s.%s: type %s (want time.Duration, int64 or string)", t, sf.Name, sf.Type))
		}
		f := ParamField{Name: name, Doc: sf.Tag.Get("doc"), Trace: sf.Tag.Get("trace"), Rate: sf.Tag.Get("scale") == "rate", Type: sf.Type, index: i}
		if g, ok := sf.Tag.Lookup("gen"); ok {
			f.Gen = strings.Split(g, ",")
		}
		out = append(out, f)
	}
	return out
}

// ParamsOf is the zero params value of the kind and mode f names (nil
// when they take none or are not registered).
func ParamsOf(kind Kind, mode string) any {
	k, ok := kinds[kind]
	if !ok {
		return nil
	}
	return k.Params(Fault{Kind: kind, Mode: mode})
}

// ParamsFor is the zero params value of kind and mode, and whether they
// are registered (a link kind needs a registered mode).
func ParamsFor(kind Kind, mode string) (zero any, known bool) {
	k, ok := kinds[kind]
	if !ok {
		return nil, false
	}
	if _, link := k.(linkKind); link {
		if _, ok := modes[mode]; !ok {
			return nil, false
		}
	}
	return k.Params(Fault{Kind: kind, Mode: mode}), true
}

// AllParamFields are the parameters of every registered kind and mode, by
// YAML key (a key shared by several owners is listed once, the first
// owner's in name order): the keys a fault may carry at all.
func AllParamFields() []ParamField {
	var out []ParamField
	seen := map[string]bool{}
	add := func(p any) {
		for _, f := range ParamFields(p) {
			if !seen[f.Name] {
				seen[f.Name] = true
				out = append(out, f)
			}
		}
	}
	for _, k := range Kinds() {
		add(k.Params(Fault{Kind: k.Kind()}))
	}
	for _, m := range Modes() {
		add(m.Params())
	}
	return out
}

// ParamSetter fills one params value key by key (a loader's decoder).
type ParamSetter struct {
	v      reflect.Value
	fields []ParamField
}

// NewParams starts a params value of the type zero (the owner's zero value;
// nil = the owner takes no parameters).
func NewParams(zero any) *ParamSetter {
	s := &ParamSetter{fields: ParamFields(zero)}
	if zero != nil {
		s.v = reflect.New(reflect.TypeOf(zero)).Elem()
	}
	return s
}

// Keys are the keys the params take, in declaration order.
func (s *ParamSetter) Keys() []string {
	out := make([]string, len(s.fields))
	for i, f := range s.fields {
		out[i] = f.Name
	}
	return out
}

// Set parses value (a YAML scalar) into key. The error says what the key
// wants; the caller adds the key, the file and the line.
func (s *ParamSetter) Set(key, value string) error {
	for _, f := range s.fields {
		if f.Name != key {
			continue
		}
		fv := s.v.Field(f.index)
		if f.IsString() {
			fv.SetString(value)
			return nil
		}
		if f.IsDuration() {
			d, err := time.ParseDuration(value)
			if err != nil {
				return fmt.Errorf("bad duration %q: want a number with a unit, one of ns, us, ms, s, m, h (e.g. 30s, 100ms)", value)
			}
			if d < 0 {
				return fmt.Errorf("bad duration %q: must not be negative", value)
			}
			fv.SetInt(int64(d))
			return nil
		}
		i, err := strconv.ParseInt(value, 0, 64)
		if err != nil {
			return fmt.Errorf("want an integer, got %q", value)
		}
		fv.SetInt(i)
		return nil
	}
	return fmt.Errorf("unknown key %q", key)
}

// Value is the params value (nil when the owner takes none).
func (s *ParamSetter) Value() any {
	if !s.v.IsValid() {
		return nil
	}
	return s.v.Interface()
}

// ParamValues are params' non-zero fields as YAML would write them
// (durations as strings with a unit, integers as int64, strings as they
// are), by key.
func ParamValues(params any) map[string]any {
	out := map[string]any{}
	for _, f := range ParamFields(params) {
		if v, ok := paramValue(params, f); ok {
			out[f.Name] = v
		}
	}
	return out
}

// paramValue is one field's value as YAML would write it; false when it
// is zero.
func paramValue(params any, f ParamField) (any, bool) {
	fv := reflect.ValueOf(params).Field(f.index)
	if fv.IsZero() {
		return nil, false
	}
	switch {
	case f.IsString():
		return fv.String(), true
	case f.IsDuration():
		return time.Duration(fv.Int()).String(), true
	default:
		return fv.Int(), true
	}
}

// MapParams returns a copy of params with every duration passed through dur
// and every per-second rate through rate (the fake engine's time scale).
func MapParams(params any, dur func(time.Duration) time.Duration, rate func(int64) int64) any {
	if params == nil {
		return nil
	}
	v := reflect.New(reflect.TypeOf(params)).Elem()
	v.Set(reflect.ValueOf(params))
	for _, f := range ParamFields(params) {
		fv := v.Field(f.index)
		switch {
		case f.IsDuration():
			fv.SetInt(int64(dur(time.Duration(fv.Int()))))
		case f.Rate && fv.Int() > 0:
			fv.SetInt(rate(fv.Int()))
		}
	}
	return v.Interface()
}

// traceParams appends params' traced fields (tag trace) that are set and
// not negative, each as YAML would write it (paramValue).
func traceParams(b *strings.Builder, params any) {
	for _, f := range ParamFields(params) {
		if f.Trace == "" {
			continue
		}
		v, ok := paramValue(params, f)
		if !ok || !f.IsString() && reflect.ValueOf(params).Field(f.index).Int() < 0 {
			continue
		}
		b.WriteByte(' ')
		fmt.Fprintf(b, f.Trace, v)
	}
}

// paramsOf is f's params as the owner's type P (P's zero value when f
// carries none, as a fault built in code without them).
func paramsOf[P any](f Fault) P {
	p, _ := f.Params.(P)
	return p
}

// checkParams: f's params, if any, are of the type its owner declares.
func checkParams(f Fault, zero any) error {
	if f.Params == nil {
		return nil
	}
	if zero == nil || reflect.TypeOf(f.Params) != reflect.TypeOf(zero) {
		return fmt.Errorf("%s: parameters %T do not belong to it", f.Kind, f.Params)
	}
	return nil
}
