package scenarios

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
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
	d.checkBuilt(reflect.ValueOf(sc).Elem(), "")
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
)

// checkBuilt makes the decoder's value checks on a struct no decoder
// filled: `enum` tags, env values (Env.decodeNode), negative durations
// (Duration.decodeNode).
func (d *decoder) checkBuilt(v reflect.Value, field string) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			d.checkBuilt(v.Elem(), field)
		}
	case reflect.Slice:
		for i := range v.Len() {
			d.checkBuilt(v.Index(i), fmt.Sprintf("%s[%d]", field, i))
		}
	case reflect.Map:
		if v.Type() == envType {
			d.checkEnv(v.Interface().(Env), field)
			return
		}
		if v.Type().Elem().Kind() == reflect.Struct {
			for _, k := range v.MapKeys() {
				d.checkBuilt(v.MapIndex(k), field+"."+k.String())
			}
		}
	case reflect.Int64:
		if v.Type() == durationType && v.Int() < 0 {
			d.at(Pos{File: d.file}, "%s: bad duration %q: must not be negative", field, time.Duration(v.Int()))
		}
	case reflect.Struct:
		tf, ok := builtFields()[v.Type()]
		if !ok {
			tf.fields, tf.pos = fieldsOf(v.Type())
		}
		fields, posIdx := tf.fields, tf.pos
		p := Pos{File: d.file}
		if posIdx >= 0 {
			p = v.Field(posIdx).Interface().(Pos)
		}
		for _, f := range fields {
			fv := v.Field(f.index)
			sub := f.key
			if field != "" {
				sub = field + "." + f.key
			}
			if f.enum != "" {
				d.checkEnum(p, fv, sub, f.enum)
				continue
			}
			d.checkBuilt(fv, sub)
		}
	}
}

type typeFields struct {
	fields []structField
	pos    int
}

// builtFields is fieldsOf of every struct type a Scenario holds, computed
// once (read-only after): checkBuilt runs on every generated scenario.
var builtFields = sync.OnceValue(func() map[reflect.Type]typeFields {
	m := map[reflect.Type]typeFields{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map:
			walk(t.Elem())
		case reflect.Struct:
			if _, ok := m[t]; ok {
				return
			}
			fs, pos := fieldsOf(t)
			m[t] = typeFields{fs, pos}
			for _, f := range fs {
				walk(t.Field(f.index).Type)
			}
		}
	}
	walk(reflect.TypeFor[Scenario]())
	return m
})

func (d *decoder) checkEnum(p Pos, v reflect.Value, field, enum string) {
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
			d.at(p, "%s: %q is not one of %s%s", field, s, strings.Join(valid, ", "), didYouMean(s, valid))
		}
	}
}

func (d *decoder) checkEnv(e Env, field string) {
	for _, k := range sortedKeys(e) {
		if v := e[k]; v != nil && sglang.BeyondInt64(k, *v) {
			d.at(Pos{File: d.file}, "%s.%s: %q: %s", field, k, *v, beyondInt64)
		}
	}
}
