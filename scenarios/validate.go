package scenarios

import (
	"errors"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mooncake-faultlab/faultlab/sglang"
)

// Validate checks a scenario built in code (explore's generator) as Parse
// checks a file's, then applies the defaults: the value checks the decoder
// makes on the way in (enums, env values beyond int64) and every check of
// validate and checkPageCapacity. Positions are those sc carries (zero for
// a built scenario: messages then name only file). sc is changed only when
// it is valid.
func Validate(file string, sc *Scenario) error {
	d := &decoder{file: file, root: Pos{File: file}}
	d.checkBuilt(reflect.ValueOf(sc).Elem(), make([]string, 0, 8))
	err := d.finish(sc)
	var le *LoadError
	if errors.As(err, &le) {
		for i := range le.Errs {
			if le.Errs[i].Pos.File == "" {
				le.Errs[i].Pos.File = file
			}
		}
	}
	return err
}

// finish is the end of Parse and Validate: the checks on the struct, the
// defaults, the page capacity.
func (d *decoder) finish(sc *Scenario) error {
	d.validate(sc)
	if len(d.errs) > 0 {
		// Causes before consequences: a missing field is often the knock-on
		// of a misspelt key, so it is reported after the misspelling.
		sort.SliceStable(d.errs, func(i, j int) bool {
			a, b := d.errs[i], d.errs[j]
			if a.derived != b.derived {
				return !a.derived
			}
			return a.Pos.Line < b.Pos.Line || (a.Pos.Line == b.Pos.Line && a.Pos.Col < b.Pos.Col)
		})
		return &LoadError{Errs: d.errs}
	}
	applyDefaults(sc)
	if errs := checkPageCapacity(sc); len(errs) > 0 {
		return &LoadError{Errs: errs}
	}
	return nil
}

var (
	envType      = reflect.TypeFor[Env]()
	durationType = reflect.TypeFor[Duration]()
	stepType     = reflect.TypeFor[Step]()
)

// checkBuilt makes the decoder's value checks on a struct no decoder
// filled: `enum` tags, env values (Env.decodeNode), negative durations
// (Duration.decodeNode). path is the field's (joined only for a message).
func (d *decoder) checkBuilt(v reflect.Value, path []string) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			d.checkBuilt(v.Elem(), path)
		}
	case reflect.Slice:
		if !builtTypes().checked[v.Type().Elem()] {
			return
		}
		for i := range v.Len() {
			d.checkBuilt(v.Index(i), append(path, "["+strconv.Itoa(i)+"]"))
		}
	case reflect.Map:
		if v.Type() == envType {
			d.checkEnv(v.Interface().(Env), path)
			return
		}
		if builtTypes().checked[v.Type().Elem()] {
			for _, k := range v.MapKeys() {
				d.checkBuilt(v.MapIndex(k), append(path, "."+k.String()))
			}
		}
	case reflect.Int64:
		if v.Type() == durationType && v.Int() < 0 {
			d.at(Pos{File: d.file}, "%s: bad duration %q: must not be negative", joinPath(path), time.Duration(v.Int()))
		}
	case reflect.Struct:
		tf, ok := builtTypes().fields[v.Type()]
		if !ok {
			tf.fields, tf.pos = fieldsOf(v.Type())
		}
		if v.Type() == stepType { // decoded by Step.decodeNode: no tags
			d.checkBuilt(v.FieldByName("Sleep"), append(path, ".sleep"))
			return
		}
		p := Pos{File: d.file}
		if tf.pos >= 0 {
			p = v.Field(tf.pos).Interface().(Pos)
		}
		for _, f := range tf.fields {
			fv := v.Field(f.index)
			sub := append(path, "."+f.key)
			if f.enum != "" {
				d.checkEnum(p, fv, sub, f.enum)
				continue
			}
			if builtTypes().checked[fv.Type()] {
				d.checkBuilt(fv, sub)
			}
		}
	}
}

func joinPath(path []string) string { return strings.TrimPrefix(strings.Join(path, ""), ".") }

type typeFields struct {
	fields []structField
	pos    int
}

// builtTypes is, for every type a Scenario holds, computed once (read-only
// after; checkBuilt runs on every generated scenario): a struct's
// fieldsOf, and whether checkBuilt has anything to check in the type.
var builtTypes = sync.OnceValue(func() (b struct {
	fields  map[reflect.Type]typeFields
	checked map[reflect.Type]bool
}) {
	b.fields = map[reflect.Type]typeFields{}
	b.checked = map[reflect.Type]bool{}
	// To a fixed point: a recursive type (HostPool.Draft) is asked while it
	// is being walked.
	for changed := true; changed; {
		changed = false
		seen := map[reflect.Type]bool{}
		var walk func(t reflect.Type) bool
		walk = func(t reflect.Type) bool {
			if seen[t] {
				return b.checked[t]
			}
			seen[t] = true
			c := t == envType || t == durationType || t == stepType
			switch t.Kind() {
			case reflect.Pointer, reflect.Slice, reflect.Map:
				c = walk(t.Elem()) || c
			case reflect.Struct:
				fs, pos := fieldsOf(t)
				b.fields[t] = typeFields{fs, pos}
				for _, f := range fs {
					c = walk(t.Field(f.index).Type) || f.enum != "" || c
				}
			}
			if c && !b.checked[t] {
				b.checked[t], changed = true, true
			}
			return c
		}
		walk(reflect.TypeFor[Scenario]())
	}
	return b
})

func (d *decoder) checkEnum(p Pos, v reflect.Value, path []string, enum string) {
	var vals []string
	switch v.Kind() {
	case reflect.String:
		vals = []string{v.String()}
	case reflect.Slice:
		vals = v.Interface().([]string)
	}
	valid := enumValues(enum)
	for _, s := range vals {
		// "" is an absent field (the default applies), as in a file.
		if s != "" && !slices.Contains(valid, s) {
			d.at(p, "%s: %q is not one of %s%s", joinPath(path), s, strings.Join(valid, ", "), didYouMean(s, valid))
		}
	}
}

func (d *decoder) checkEnv(e Env, path []string) {
	for _, k := range sortedKeys(e) {
		if v := e[k]; v != nil && sglang.BeyondInt64(k, *v) {
			d.at(Pos{File: d.file}, "%s.%s: %q: %s", joinPath(path), k, *v, beyondInt64)
		}
	}
}
