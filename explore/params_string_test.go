package explore

import (
	"encoding/json"
	"testing"

	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	"gopkg.in/yaml.v3"
)

// A string parameter goes through a generated world's JSON and YAML as
// it is (one that looks like a number or holds JSON included) and builds
// the owner's params as the loader would.
func TestStringParamRoundTrip(t *testing.T) {
	want := faults.AnswerParams{Status: 200, Body: `{"protocol":"tcp","buffers":[{"name":"cpu:0"}]}`, Key: "42"}
	f := DocFault{At: "0s", Kind: "answer", Target: "metadata", Mode: "get", Params: faults.ParamValues(want)}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var back DocFault
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	y, err := yaml.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var fromYAML DocFault
	if err := yaml.Unmarshal(y, &fromYAML); err != nil {
		t.Fatal(err)
	}
	for name, d := range map[string]DocFault{"json": back, "yaml": fromYAML} {
		got, err := scenarios.FaultParams(d.Kind, d.Mode, d.paramStrings())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got != want {
			t.Errorf("%s: %+v, want %+v (%s)", name, got, want, b)
		}
	}
}
