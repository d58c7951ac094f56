package sglang

import (
	"math"
	"testing"
)

// Expected texts are str(json.JSONDecodeError) from CPython 3.11's C scanner
// (same as 3.12), captured with python3 -c 'json.loads(...)'.
func TestPyJSONErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "Expecting value: line 1 column 1 (char 0)"},
		{"{", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"},
		{`{"master_server_address": "m:1",}`, "Expecting property name enclosed in double quotes: line 1 column 33 (char 32)"},
		{"{\n  \"a\": 1\n  \"b\": 2}", "Expecting ',' delimiter: line 3 column 3 (char 13)"},
		{"[1,]", "Expecting value: line 1 column 4 (char 3)"},
		{`{"a" 1}`, "Expecting ':' delimiter: line 1 column 6 (char 5)"},
		{`{"a": }`, "Expecting value: line 1 column 7 (char 6)"},
		{"{\"a\": \"x\n\"}", "Invalid control character at: line 1 column 9 (char 8)"},
		{`{"a": "\q"}`, `Invalid \escape: line 1 column 8 (char 7)`},
		{`{"a": "\u12"}`, `Invalid \uXXXX escape: line 1 column 9 (char 8)`},
		{`{"a": "\u12zz"}`, `Invalid \uXXXX escape: line 1 column 9 (char 8)`},
		{`{"a": 1} x`, "Extra data: line 1 column 10 (char 9)"},
		{`{"a": "abc`, "Unterminated string starting at: line 1 column 7 (char 6)"},
		{"\ufeff{}", "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)"},
		{"nul", "Expecting value: line 1 column 1 (char 0)"},
		{"-", "Expecting value: line 1 column 1 (char 0)"},
		{`{"a": 1.}`, "Expecting ',' delimiter: line 1 column 8 (char 7)"},
		{`{"a": 1e}`, "Expecting ',' delimiter: line 1 column 8 (char 7)"},
		{"[1 2]", "Expecting ',' delimiter: line 1 column 4 (char 3)"},
		{"  \n  x", "Expecting value: line 2 column 3 (char 5)"},
		{`{"a": -}`, "Expecting value: line 1 column 7 (char 6)"},
		{`{"é": 1,,}`, "Expecting property name enclosed in double quotes: line 1 column 9 (char 8)"},
	}
	for _, tc := range tests {
		_, err := pyJSONLoads(tc.in)
		if err == nil {
			t.Errorf("%q: no error, want %q", tc.in, tc.want)
			continue
		}
		if _, ok := err.(*jsonDecodeError); !ok || err.Error() != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.in, err.Error(), tc.want)
		}
	}
}

func TestPyJSONValues(t *testing.T) {
	v, err := pyJSONLoads(" {\"a\": [1, -2.5e1, true, false, null, \"x\\u00e9\\ud83d\\ude00\\n\"], \"b\": {}, \"c\": 0} \n")
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "value", v, map[string]any{"a": []any{int64(1), -25.0, true, false, nil, "xé😀\n"}, "b": map[string]any{}, "c": int64(0)})
	v, err = pyJSONLoads("[NaN, Infinity, -Infinity]")
	if err != nil {
		t.Fatal(err)
	}
	a := v.([]any)
	if !math.IsNaN(a[0].(float64)) || !math.IsInf(a[1].(float64), 1) || !math.IsInf(a[2].(float64), -1) {
		t.Fatalf("got %v", a)
	}
}
