package mooncake

import "testing"

// TestHugepageMmapByRelease: the texts real printed per release
// (setup/hugepage-env-without-pool).
func TestHugepageMmapByRelease(t *testing.T) {
	for v, want := range map[string]HugepageMmap{
		"0.3.8.post1":  {FailedLine: "Hugepage mmap failed"},
		"0.3.10.post2": {FailedLine: "Hugepage mmap failed"},
		"0.3.11.post1": {FailedLine: "mmap failed", ArenaOptIn: true},
		"0.3.13.post1": {FailedLine: "mmap failed", ArenaOptIn: true},
		"0.3.14":       {FailedLine: "mmap failed", ArenaOptIn: true, BufferFailReturns: true, ArenaHugepageLine: true},
	} {
		p, err := ProfileFor(v)
		if err != nil {
			t.Fatal(err)
		}
		if p.HugepageMmap != want {
			t.Errorf("%s: %+v, want %+v", v, p.HugepageMmap, want)
		}
	}
}
