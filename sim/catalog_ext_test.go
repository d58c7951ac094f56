package sim_test

import (
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// catalogScenario is the catalog's scenario name (a test of one world on
// the model per release).
func catalogScenario(t *testing.T, name string) *scenarios.Scenario {
	t.Helper()
	cat, err := scenarios.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(cat, func(sc *scenarios.Scenario) bool { return sc.Name == name })
	if i < 0 {
		t.Fatalf("%s not in the catalog", name)
	}
	return cat[i]
}
