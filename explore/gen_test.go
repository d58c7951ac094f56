package explore

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mooncake-faultlab/faultlab/scenarios"
	"gopkg.in/yaml.v3"
)

// Generation is a pure function of the seed, and the YAML written to the
// corpus (or by --emit) is the same scenario the explorer ran.
func TestGenerateParsesAndIsPure(t *testing.T) {
	for seed := uint64(0); seed < 2000; seed++ {
		for _, wall := range []bool{false, true} {
			d := Generate(seed, GenOptions{Wall: wall})
			_, b, err := d.Scenario()
			if err != nil {
				t.Fatalf("seed %d: %v\n%s", seed, err, b)
			}
			_, again, _ := Generate(seed, GenOptions{Wall: wall}).Scenario()
			if !bytes.Equal(b, again) {
				t.Fatalf("seed %d: not a pure function of the seed", seed)
			}
			y := d.Marshal()
			if _, err := scenarios.Parse("seed.yaml", y); err != nil {
				t.Fatalf("seed %d: YAML does not load: %v\n%s", seed, err, y)
			}
			var back Doc
			if err := yaml.Unmarshal(y, &back); err != nil {
				t.Fatal(err)
			}
			bj, _ := json.Marshal(&back)
			if !bytes.Equal(bj, b) {
				t.Fatalf("seed %d: YAML round trip differs:\n%s\n%s", seed, bj, b)
			}
		}
	}
}
