package sglang

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Python's json module as SGLang meets it (json.load of the config file,
// json.loads of a JSON device_name). Values decode to nil, bool, int64,
// float64, string, []any, map[string]any; errors are *jsonDecodeError whose
// text is str(json.JSONDecodeError) of CPython 3.12's C scanner
// (Modules/_json.c, Lib/json/decoder.py). 3.13 changed the trailing-comma
// message ("Illegal trailing comma before end of object"); we follow 3.12.

type jsonDecodeError struct {
	msg string
	pos int // code point index, as Python counts
	doc []rune
}

// Error is JSONDecodeError.__str__: '%s: line %d column %d (char %d)'.
func (e *jsonDecodeError) Error() string {
	line := 1
	last := -1
	for i := 0; i < e.pos && i < len(e.doc); i++ {
		if e.doc[i] == '\n' {
			line++
			last = i
		}
	}
	return fmt.Sprintf("%s: line %d column %d (char %d)", e.msg, line, e.pos-last, e.pos)
}

type jsonScanner struct{ s []rune }

// pyJSONLoads is json.loads(s).
func pyJSONLoads(text string) (any, error) {
	sc := &jsonScanner{s: []rune(text)}
	if len(sc.s) > 0 && sc.s[0] == '\ufeff' {
		return nil, &jsonDecodeError{msg: "Unexpected UTF-8 BOM (decode using utf-8-sig)", pos: 0, doc: sc.s}
	}
	idx := sc.ws(0)
	v, end, err := sc.scanOnce(idx)
	if err != nil {
		return nil, sc.toError(err)
	}
	end = sc.ws(end)
	if end != len(sc.s) {
		return nil, &jsonDecodeError{msg: "Extra data", pos: end, doc: sc.s}
	}
	return v, nil
}

func (sc *jsonScanner) toError(err error) error {
	if st, ok := err.(*stopErr); ok {
		return &jsonDecodeError{msg: "Expecting value", pos: st.idx, doc: sc.s}
	}
	return err
}

// stopErr is the C scanner's StopIteration(idx), which json.decoder turns
// into "Expecting value" at idx.
type stopErr struct{ idx int }

func (e *stopErr) Error() string { return fmt.Sprintf("StopIteration: %d", e.idx) }

func (sc *jsonScanner) errAt(msg string, pos int) error {
	return &jsonDecodeError{msg: msg, pos: pos, doc: sc.s}
}

func isJSONWS(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

func (sc *jsonScanner) ws(i int) int {
	for i < len(sc.s) && isJSONWS(sc.s[i]) {
		i++
	}
	return i
}

func (sc *jsonScanner) hasPrefix(i int, lit string) bool {
	r := []rune(lit)
	if i+len(r) > len(sc.s) {
		return false
	}
	for k := range r {
		if sc.s[i+k] != r[k] {
			return false
		}
	}
	return true
}

// scanOnce is scan_once_unicode.
func (sc *jsonScanner) scanOnce(idx int) (any, int, error) {
	if idx >= len(sc.s) {
		return nil, 0, &stopErr{idx}
	}
	switch sc.s[idx] {
	case '"':
		return sc.scanString(idx + 1)
	case '{':
		return sc.parseObject(idx + 1)
	case '[':
		return sc.parseArray(idx + 1)
	case 'n':
		if sc.hasPrefix(idx, "null") {
			return nil, idx + 4, nil
		}
	case 't':
		if sc.hasPrefix(idx, "true") {
			return true, idx + 4, nil
		}
	case 'f':
		if sc.hasPrefix(idx, "false") {
			return false, idx + 5, nil
		}
	case 'N':
		if sc.hasPrefix(idx, "NaN") {
			return math.NaN(), idx + 3, nil
		}
	case 'I':
		if sc.hasPrefix(idx, "Infinity") {
			return math.Inf(1), idx + 8, nil
		}
	case '-':
		if sc.hasPrefix(idx, "-Infinity") {
			return math.Inf(-1), idx + 9, nil
		}
	}
	return sc.matchNumber(idx)
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

// matchNumber is _match_number_unicode.
func (sc *jsonScanner) matchNumber(start int) (any, int, error) {
	s, idx, end := sc.s, start, len(sc.s)-1
	if idx <= end && s[idx] == '-' {
		idx++
		if idx > end {
			return nil, 0, &stopErr{start}
		}
	}
	switch {
	case idx <= end && s[idx] >= '1' && s[idx] <= '9':
		idx++
		for idx <= end && isDigit(s[idx]) {
			idx++
		}
	case idx <= end && s[idx] == '0':
		idx++
	default:
		return nil, 0, &stopErr{start}
	}
	isFloat := false
	if idx < end && s[idx] == '.' && isDigit(s[idx+1]) {
		isFloat = true
		idx += 2
		for idx <= end && isDigit(s[idx]) {
			idx++
		}
	}
	if idx < end && (s[idx] == 'e' || s[idx] == 'E') {
		e := idx
		idx++
		if idx < end && (s[idx] == '-' || s[idx] == '+') {
			idx++
		}
		for idx <= end && isDigit(s[idx]) {
			idx++
		}
		if isDigit(s[idx-1]) {
			isFloat = true
		} else {
			idx = e
		}
	}
	lit := string(s[start:idx])
	if isFloat {
		f, err := strconv.ParseFloat(lit, 64)
		if err != nil && !strings.Contains(err.Error(), "range") {
			return nil, 0, fmt.Errorf("json number %q: %w", lit, err)
		}
		return f, idx, nil
	}
	n, err := strconv.ParseInt(lit, 10, 64)
	if err != nil {
		// Python ints are unbounded; the harness is not.
		return nil, 0, fmt.Errorf("json integer %q does not fit in int64: %w", lit, err)
	}
	return n, idx, nil
}

// scanString is scanstring_unicode with strict=True; begin is after the quote.
func (sc *jsonScanner) scanString(begin int) (any, int, error) {
	s := sc.s
	var b strings.Builder
	next := begin
	for {
		// Find the end of the chunk.
		i := next
		for ; i < len(s); i++ {
			c := s[i]
			if c == '"' || c == '\\' {
				break
			}
			if c <= 0x1f {
				return nil, 0, sc.errAt("Invalid control character at", i)
			}
		}
		if i >= len(s) {
			return nil, 0, sc.errAt("Unterminated string starting at", begin-1)
		}
		b.WriteString(string(s[next:i]))
		if s[i] == '"' {
			return b.String(), i + 1, nil
		}
		// Backslash.
		next = i + 1
		if next >= len(s) {
			return nil, 0, sc.errAt("Unterminated string starting at", begin-1)
		}
		c := s[next]
		if c != 'u' {
			next++
			switch c {
			case '"', '\\', '/':
				b.WriteRune(c)
			case 'b':
				b.WriteRune('\b')
			case 'f':
				b.WriteRune('\f')
			case 'n':
				b.WriteRune('\n')
			case 'r':
				b.WriteRune('\r')
			case 't':
				b.WriteRune('\t')
			default:
				return nil, 0, sc.errAt(`Invalid \escape`, next-2)
			}
			continue
		}
		next++
		cp, n, err := sc.hex4(next)
		if err != nil {
			return nil, 0, err
		}
		next = n
		if cp >= 0xd800 && cp <= 0xdbff && next+1 < len(s) && s[next] == '\\' && s[next+1] == 'u' {
			lo, n2, err := sc.hex4(next + 2)
			if err != nil {
				return nil, 0, err
			}
			if lo >= 0xdc00 && lo <= 0xdfff {
				cp = 0x10000 + ((cp - 0xd800) << 10) | (lo - 0xdc00)
				next = n2
			}
		}
		// A lone surrogate is a valid Python str but not a Go string.
		b.WriteRune(rune(cp))
	}
}

func (sc *jsonScanner) hex4(next int) (int, int, error) {
	end := next + 4
	if end >= len(sc.s) {
		return 0, 0, sc.errAt(`Invalid \uXXXX escape`, next-1)
	}
	v := 0
	for ; next < end; next++ {
		d := sc.s[next]
		v <<= 4
		switch {
		case d >= '0' && d <= '9':
			v |= int(d - '0')
		case d >= 'a' && d <= 'f':
			v |= int(d-'a') + 10
		case d >= 'A' && d <= 'F':
			v |= int(d-'A') + 10
		default:
			return 0, 0, sc.errAt(`Invalid \uXXXX escape`, end-5)
		}
	}
	return v, end, nil
}

// parseObject is _parse_object_unicode; idx is after '{'.
func (sc *jsonScanner) parseObject(idx int) (any, int, error) {
	s, end := sc.s, len(sc.s)-1
	obj := map[string]any{}
	idx = sc.ws(idx)
	if idx > end || s[idx] != '}' {
		for {
			if idx > end || s[idx] != '"' {
				return nil, 0, sc.errAt("Expecting property name enclosed in double quotes", idx)
			}
			k, next, err := sc.scanString(idx + 1)
			if err != nil {
				return nil, 0, err
			}
			idx = sc.ws(next)
			if idx > end || s[idx] != ':' {
				return nil, 0, sc.errAt("Expecting ':' delimiter", idx)
			}
			idx = sc.ws(idx + 1)
			v, next, err := sc.scanOnce(idx)
			if err != nil {
				return nil, 0, err
			}
			obj[k.(string)] = v
			idx = sc.ws(next)
			if idx <= end && s[idx] == '}' {
				break
			}
			if idx > end || s[idx] != ',' {
				return nil, 0, sc.errAt("Expecting ',' delimiter", idx)
			}
			idx = sc.ws(idx + 1)
		}
	}
	return obj, idx + 1, nil
}

// parseArray is _parse_array_unicode; idx is after '['.
func (sc *jsonScanner) parseArray(idx int) (any, int, error) {
	s, end := sc.s, len(sc.s)-1
	arr := []any{}
	idx = sc.ws(idx)
	if idx > end || s[idx] != ']' {
		for {
			v, next, err := sc.scanOnce(idx)
			if err != nil {
				return nil, 0, err
			}
			arr = append(arr, v)
			idx = sc.ws(next)
			if idx <= end && s[idx] == ']' {
				break
			}
			if idx > end || s[idx] != ',' {
				return nil, 0, sc.errAt("Expecting ',' delimiter", idx)
			}
			idx = sc.ws(idx + 1)
		}
	}
	return arr, idx + 1, nil
}
