package explore

import (
	"bytes"
	"testing"
)

func TestGenerateParsesAndIsPure(t *testing.T) {
	for seed := uint64(0); seed < 2000; seed++ {
		d := Generate(seed, GenOptions{})
		_, b, err := d.Scenario()
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, b)
		}
		if !bytes.Equal(b, Generate(seed, GenOptions{}).Marshal()) {
			t.Fatalf("seed %d: not a pure function of the seed", seed)
		}
	}
}
