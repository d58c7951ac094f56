package explain

import (
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// The SGLang release a log states picks among those a scenario models:
// the same one, the newest (oldest) for a later (earlier) one, the two
// around one in between; none stated, every one.
func TestWithinReleases(t *testing.T) {
	cat, err := scenarios.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(cat, func(sc *scenarios.Scenario) bool { return sc.Name == "standalone/draft-pool-allocator-by-release" })
	if i < 0 {
		t.Fatal("no standalone/draft-pool-allocator-by-release")
	}
	sc := cat[i]
	for _, tc := range []struct {
		stated string
		want   []string
	}{
		{"", []string{"0.5.14", "0.5.17", "0.5.23"}},
		{"not-a-version", []string{"0.5.14", "0.5.17", "0.5.23"}},
		{"0.5.17", []string{"0.5.17"}},
		{"0.5.15", []string{"0.5.14", "0.5.17"}},
		{"0.5.30", []string{"0.5.23"}},
		{"0.5.10", []string{"0.5.14"}},
	} {
		if got := (within{sglang: tc.stated}).releases(sc); !slices.Equal(got, tc.want) {
			t.Errorf("%q: %v, want %v", tc.stated, got, tc.want)
		}
	}
}
