package sim_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// TestOffloadRequeuedKeyInvalidKey: io/ssd-offload-readback-invalid-key on
// the model, the client's lines and gets of its main phase per release, as
// real printed them (docs/REAL-FINDINGS.md §63): a key held back for a
// bucket that is not full, removed and put again, is grouped twice up to
// 0.3.12; 0.3.11.post1 tells the master a bucket's keys before its
// duplicate check drops the bucket, so the other key of that bucket
// (kv2) reads back as INVALID_KEY; 0.3.12.post1 writes kv2 alone;
// 0.3.13.post1 reports the held-back kv2 failed, which unpins it, and it
// is evicted unwritten; 0.3.14 keeps it pinned in memory.
func TestOffloadRequeuedKeyInvalidKey(t *testing.T) {
	world := catalogScenario(t, "io/ssd-offload-readback-invalid-key")
	invalid := []string{
		"Duplicate key detected in BatchOffload: kv0, bucket_id=2. Returning OBJECT_ALREADY_EXISTS.",
		"Cleaned up orphaned bucket data file: /faultlab/offload/2.bucket",
		"Cleaned up orphaned bucket metadata file: /faultlab/offload/2.meta",
		"Failed to store objects with error: OBJECT_ALREADY_EXISTS",
		"Failed to persist objects with error: OBJECT_ALREADY_EXISTS",
		"Key not found: kv2",
		"Batch load object failed,err_code = INVALID_KEY",
		"Batch load object failed,err_code = INVALID_KEY",
		"Batch get offload object failed,err_code = INVALID_KEY",
		"Failed to invoke batch_get_offload_object, client_addr = localhost:40000, error is: INVALID_KEY",
		"Batch get offload object failed with error: INVALID_KEY",
		"SSD read failed for key 'kv2': INVALID_KEY",
	}
	for _, c := range []struct {
		version string
		lines   []string
		gets    []int
	}{
		{"0.3.11.post1", invalid, []int{0, 4096, 4096}},
		{"0.3.12.post1", nil, []int{4096, 4096, 4096}},
		{"0.3.13.post1", nil, []int{0, 4096, 4096}},
		{"0.3.14", nil, []int{4096, 4096, 4096}},
	} {
		rs := scenarios.Run(context.Background(), world, sim.New(), scenarios.Options{Seed: 1, Version: c.version})
		if len(rs) != 1 || rs[0].Verdict != "pass" {
			t.Fatalf("%s: %d results, %+v", c.version, len(rs), rs)
		}
		o := rs[0].Observed
		// The client's lines after its setup, less the mount's warnings
		// and each read's timing line.
		var lines []string
		after := false
		for j, l := range o.Logs {
			switch {
			case strings.HasPrefix(l, "Offload RPC server started on port "):
				after = true
			case after && o.LogSources[j] != "master" && !strings.HasPrefix(l, "Time taken for "):
				lines = append(lines, l)
			}
		}
		var gets []int
		for _, call := range o.Calls {
			if call.Method == "get" {
				gets = append(gets, call.Code)
			}
		}
		if !slices.Equal(lines, c.lines) || !slices.Equal(gets, c.gets) {
			t.Errorf("%s: lines\n%q\ngets %v; want\n%q\n%v", c.version, lines, gets, c.lines, c.gets)
		}
	}
}
