package mooncake

import (
	"fmt"
	"regexp"
	"strings"
)

// StoreClass is the Python class of the store binding up to 0.3.13.post1;
// Profile.StoreClass is the one a release prints.
const StoreClass = "mooncake.store.MooncakeDistributedStore"

// storeClassPackaged is 0.3.14's: the binding moved to the extension
// module mooncake/store/_store (real SGLang 0.5.17 against the 0.3.14
// wheel, 2026-12-01: "(self: mooncake._store.MooncakeDistributedStore, …").
const storeClassPackaged = "mooncake._store.MooncakeDistributedStore"

// SimObjectAddr is the address sim prints in reprs; real ones differ per
// run, so oracles compare messages through NormalizeAddresses.
const SimObjectAddr = "0x7f00deadbeef"

var addrRE = regexp.MustCompile(`0x[0-9a-fA-F]+`)

// NormalizeAddresses replaces every hex address with 0x…, so a message from
// a real run compares equal to the simulator's.
func NormalizeAddresses(s string) string {
	if !strings.Contains(s, "0x") { // most messages: no regexp pass
		return s
	}
	return addrRE.ReplaceAllString(s, "0x…")
}

// PyRepr is Python's repr() of a kwarg or argument value.
func PyRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case string:
		return "'" + strings.ReplaceAll(strings.ReplaceAll(x, `\`, `\\`), "'", `\'`) + "'"
	case int:
		return fmt.Sprint(x)
	case int64:
		return fmt.Sprint(x)
	case float64:
		return fmt.Sprint(x)
	}
	return fmt.Sprint(v)
}

// signature renders one overload line of a pybind11 TypeError.
func signature(class string, params []Param) string {
	parts := []string{"self: " + class}
	for _, p := range params {
		s := p.Name + ": " + p.Type
		if p.Default != "" {
			s += " = " + p.Default
		}
		parts = append(parts, s)
	}
	return "(" + strings.Join(parts, ", ") + ") -> int"
}

// SetupTypeError is the exact str() of the TypeError pybind11 raises when
// no setup() overload of profile p matches the call: every overload's
// signature, then the positional reprs and every passed kwarg.
func SetupTypeError(p Profile, positional []any, kwargs []KV) string {
	var b strings.Builder
	b.Grow(1024)
	b.WriteString("setup(): incompatible function arguments. The following argument types are supported:\n")
	class := p.Class()
	sig := p.setupSignature
	if sig == "" { // a Profile not from ProfileFor
		sig = signature(class, p.SetupParams)
	}
	b.WriteString("    1. " + sig + "\n")
	if p.SetupDictOverload {
		b.WriteString("    2. " + signature(class, []Param{{"config", "dict", ""}}) + "\n")
	}
	args := []string{fmt.Sprintf("<%s object at %s>", class, SimObjectAddr)}
	for _, a := range positional {
		args = append(args, PyRepr(a))
	}
	fmt.Fprintf(&b, "\nInvoked with: %s", strings.Join(args, ", "))
	if len(kwargs) > 0 {
		kw := make([]string, len(kwargs))
		for i, k := range kwargs {
			kw[i] = k.Name + "=" + PyRepr(k.Value)
		}
		fmt.Fprintf(&b, "; kwargs: %s", strings.Join(kw, ", "))
	}
	return b.String()
}

// KV is a keyword argument (name, Python value) in call order.
type KV struct {
	Name  string
	Value any
}

// SetupCallMatches reports whether pybind11 would accept a setup() call
// with nPositional positional arguments (after self) and these kwarg names.
func SetupCallMatches(p Profile, nPositional int, kwargNames []string) bool {
	if nPositional > len(p.SetupParams) {
		return false
	}
	required := 0
	for _, q := range p.SetupParams {
		if q.Default == "" {
			required++
		}
	}
	if nPositional < required {
		return false
	}
	for _, k := range kwargNames {
		idx := -1
		for i, q := range p.SetupParams {
			if q.Name == k && !strings.HasPrefix(q.Name, "arg") {
				idx = i
			}
		}
		if idx < nPositional { // unknown, or given twice
			return false
		}
	}
	return true
}

// Class is the store binding's Python class at p's release.
func (p Profile) Class() string {
	if p.StoreClass == "" { // a Profile not from ProfileFor
		return StoreClass
	}
	return p.StoreClass
}
