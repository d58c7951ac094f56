package sglang

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// Python values as SGLang's config code sees them: nil (None), bool, int64,
// float64, string, []any (list), map[string]any (dict).

func pyErr(class, msg string) *engine.PyError { return &engine.PyError{Class: class, Message: msg} }

// pyTypeName is type(v).__name__.
func pyTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case int64:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	}
	return fmt.Sprintf("%T", v)
}

// pyTruthy is bool(v).
func pyTruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case int64:
		return x != 0
	case float64:
		return x != 0
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// pyStr is str(v) for scalars.
func pyStr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case string:
		return x
	case float64:
		return pyFloatRepr(x)
	case bool, int64:
		return mooncake.PyRepr(x)
	}
	return fmt.Sprint(v)
}

// pyRepr is repr(v) for scalars.
func pyRepr(v any) string {
	if f, ok := v.(float64); ok {
		return pyFloatRepr(f)
	}
	return mooncake.PyRepr(v)
}

// pyFloatRepr is float.__repr__: shortest round-trip digits, exponent
// notation when the decimal exponent is < -4 or >= 16.
func pyFloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, expS, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expS)
	sign := ""
	if strings.HasPrefix(mant, "-") {
		sign, mant = "-", mant[1:]
	}
	digits := strings.Replace(mant, ".", "", 1)
	if exp < -4 || exp >= 16 {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		es := fmt.Sprintf("%+03d", exp)
		return sign + m + "e" + es
	}
	if exp < 0 {
		return sign + "0." + strings.Repeat("0", -exp-1) + digits
	}
	if len(digits) <= exp+1 {
		return sign + digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
	}
	return sign + digits[:exp+1] + "." + digits[exp+1:]
}

// pyIntFromStr is int(s) for a str: surrounding whitespace, an optional
// sign, digits with single underscores between them. The error is
// ValueError "invalid literal for int() with base 10: <repr(s)>".
func pyIntFromStr(s string) (int64, error) {
	bad := pyErr("ValueError", "invalid literal for int() with base 10: "+pyRepr(s))
	t := strings.TrimFunc(s, unicode.IsSpace)
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	if t == "" || t[0] == '_' || t[len(t)-1] == '_' || strings.Contains(t, "__") {
		return 0, bad
	}
	var n int64
	for _, r := range t {
		if r == '_' {
			continue
		}
		if r < '0' || r > '9' {
			return 0, bad
		}
		if n > (math.MaxInt64-9)/10 {
			return 0, engine.Unsupportedf("sglang: int(%q) exceeds int64", s)
		}
		n = n*10 + int64(r-'0')
	}
	if neg {
		n = -n
	}
	return n, nil
}

// normalizePy converts a Go value handed in by the runner (e.g. decoded
// --hicache-storage-backend-extra-config) to the Python value set. SGLang
// gets that flag through json.loads, which yields int for integral
// literals; encoding/json yields float64 for every number, so an integral
// float64 is taken as an int.
func normalizePy(v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, int64, string:
		return x, nil
	case int:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case uint32:
		return int64(x), nil
	case uint64:
		if x > math.MaxInt64 {
			return nil, fmt.Errorf("value %d exceeds int64", x)
		}
		return int64(x), nil
	case float32:
		return normalizePy(float64(x))
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), nil
		}
		return x, nil
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n, nil
		}
		f, err := x.Float64()
		return f, err
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			n, err := normalizePy(e)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			n, err := normalizePy(e)
			if err != nil {
				return nil, fmt.Errorf("key %q: %w", k, err)
			}
			out[k] = n
		}
		return out, nil
	}
	return nil, fmt.Errorf("unsupported value type %T", v)
}
