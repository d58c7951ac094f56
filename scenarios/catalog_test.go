package scenarios

import (
	"testing"
)

func TestCatalogLoads(t *testing.T) {
	scs, err := Catalog()
	if err != nil {
		t.Fatalf("catalog: %v", err)
	}
	if len(scs) < 20 {
		t.Fatalf("catalog has %d scenarios, want >= 20", len(scs))
	}
	for _, sc := range scs {
		vs, ok := sc.Versions("")
		if !ok || len(vs) == 0 {
			t.Errorf("%s: no versions", sc.Name)
		}
		t.Logf("%-50s %v %v", sc.Name, vs, sc.Labels)
	}
}
