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

// An expected line matches a field line with other addresses, never one
// with other sizes.
func TestExpectedLineAddrs(t *testing.T) {
	rc := &memo{}
	for _, tc := range []struct {
		expected, field string
		want            bool
	}{
		{"Failed to set location of 127.0.0.1:17781", "Failed to set location of 10.0.0.5:12345", true},
		{"send request to [::1]:50051 failed. connection refused.", "send request to [fd00::2]:50052 failed. connection refused.", true},
		{"Failed to set location of {{client}}", "Failed to set location of node-3.example:12345", true},
		{"The buffer length exceeds device max_mr_size, shrink it to 268435456", "The buffer length exceeds device max_mr_size, shrink it to 68719476736", false},
		{"Mounting segment: 268435456 bytes, 268435456 of 1073741824", "Mounting segment: 16777216 bytes, 16777216 of 67108864", false},
	} {
		text := maskAddrs(tc.field)
		if got := rc.literal(tc.expected).MatchString(tc.field) || rc.addrs(tc.expected).MatchString(text); got != tc.want {
			t.Errorf("%q in %q: %v", tc.expected, tc.field, got)
		}
	}
}
