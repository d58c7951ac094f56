package scenarios

import (
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/faults"
)

// A string parameter (the answer kind's body and key): the loader takes
// any scalar as written, refuses a mapping or a sequence, and the schema
// types it as a string.
func TestStringParamParse(t *testing.T) {
	s := compileSchema(t)
	head := validScenario + "faults:\n  - {at: 0s, kind: answer, target: metadata, mode: get, status: 200, "
	for _, c := range []struct {
		name, fault string
		want        faults.AnswerParams
		err         string // the loader's error, "" = parses
		schemaOK    bool
	}{
		{"json body", `body: '{"protocol":"tcp","buffers":[{"name":"cpu:0"}]}', key: mooncake/ram/}`,
			faults.AnswerParams{Status: 200, Body: `{"protocol":"tcp","buffers":[{"name":"cpu:0"}]}`, Key: "mooncake/ram/"}, "", true},
		{"plain body", `body: not json}`, faults.AnswerParams{Status: 200, Body: "not json"}, "", true},
		{"quoted number", `body: "42"}`, faults.AnswerParams{Status: 200, Body: "42"}, "", true},
		{"empty body is the default", `body: ""}`, faults.AnswerParams{Status: 200}, "", true},
		// The loader takes an unquoted number as written; the schema,
		// stricter, wants it quoted.
		{"unquoted number", `body: 42}`, faults.AnswerParams{Status: 200, Body: "42"}, "", false},
		{"mapping", `body: {a: 1}}`, faults.AnswerParams{}, "faults[0].body", false},
		{"sequence", `key: [a]}`, faults.AnswerParams{}, "faults[0].key", false},
	} {
		y := head + c.fault + "\n"
		sc, err := Parse("f.yaml", []byte(y))
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one naming %s", c.name, err, c.err)
		case c.err == "":
			if got := sc.Faults[0].Params; got != c.want {
				t.Errorf("%s: params %+v, want %+v", c.name, got, c.want)
			}
		}
		if err := s.Validate(yamlToJSON(t, []byte(y))); (err == nil) != c.schemaOK {
			t.Errorf("%s: schema error %v, want ok %t", c.name, err, c.schemaOK)
		}
	}
}
