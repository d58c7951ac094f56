package scenarios

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/sglang"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// Parallel worlds change nothing a run observes: on sim every trace hash
// equals the serial run's, and results come back in catalog order.
func TestRunParallelMatchesSerial(t *testing.T) {
	cat, err := Catalog()
	if err != nil {
		t.Fatal(err)
	}
	eng := sim.New()
	opts := Options{Seed: 3}
	var serial []Result
	for _, sc := range cat {
		serial = append(serial, Run(context.Background(), sc, eng, opts)...)
	}
	jobs := Jobs(cat, []engine.Engine{eng}, opts)
	par := RunParallel(context.Background(), jobs, opts, ParallelOptions{Jobs: map[string]int{eng.Name(): 4}, Started: func(Job) {}, Finished: func(Job, Result) {}})
	if len(par) != len(serial) || len(par) < 30 {
		t.Fatalf("%d parallel results, %d serial", len(par), len(serial))
	}
	for i := range par {
		a, b := serial[i], par[i]
		if a.Scenario != b.Scenario || a.MooncakeVersion != b.MooncakeVersion || a.Verdict != b.Verdict || a.TraceHash != b.TraceHash {
			t.Errorf("#%d serial %s@%s %s %s, parallel %s@%s %s %s", i, a.Scenario, a.MooncakeVersion, a.Verdict, a.TraceHash, b.Scenario, b.MooncakeVersion, b.Verdict, b.TraceHash)
		}
	}
}

func TestShardSplitsDisjointly(t *testing.T) {
	var jobs []Job
	for i := range 10 {
		jobs = append(jobs, Job{Index: i})
	}
	seen := map[int]int{}
	for i := 0; i < 3; i++ {
		for _, j := range Shard(jobs, i, 3) {
			seen[j.Index]++
		}
	}
	if len(seen) != 10 {
		t.Fatalf("%v", seen)
	}
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("job %d in %d shards", k, n)
		}
	}
	for _, bad := range []string{"3/3", "4/3", "-1/3", "1/0", "0/0", "a/b", "1/3x", "1-3", "01/3"} {
		if _, _, err := ParseShard(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	// 0-based, as explore's --shard: shard 0/3 starts at the first job.
	var first []int
	for _, j := range Shard(jobs, 0, 3) {
		first = append(first, j.Index)
	}
	if fmt.Sprint(first) != "[0 3 6 9]" {
		t.Fatalf("shard 0/3: %v", first)
	}
	for _, ok := range []string{"0/1", "0/3", "2/3"} {
		if _, _, err := ParseShard(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

// A scenario naming SGLang releases runs at each with the default model,
// once (at the pinned release) with a pinned side, in Run and RunParallel.
func TestSGLangReleaseJobs(t *testing.T) {
	sc, err := Parse("f.yaml", []byte(validScenario+"sglang: {versions: [\"0.5.14\", \"0.5.23\"]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	eng := sim.New()
	rels := func(rs []Result) (out []string) {
		for _, r := range rs {
			ran := "ran"
			if r.Verdict == Skip {
				ran = "skip"
			}
			out = append(out, r.SGLangVersion+" "+ran)
		}
		return out
	}
	for _, tc := range []struct {
		side sglang.Side
		want []string
	}{
		{nil, []string{"0.5.14 ran", "0.5.23 ran"}},
		{sglang.Model{Version: "0.5.14"}, []string{"0.5.14 ran"}},
		{sglang.Model{Version: "0.5.17"}, []string{"0.5.17 skip"}},
	} {
		opts := Options{Seed: 1, Version: "0.3.13.post1", SGLang: tc.side}
		if got := rels(Run(context.Background(), sc, eng, opts)); !slices.Equal(got, tc.want) {
			t.Errorf("Run with %v: %q, want %q", tc.side, got, tc.want)
		}
		jobs := Jobs([]*Scenario{sc}, []engine.Engine{eng}, Options{Seed: 1, Version: "0.3.13.post1"})
		if got := rels(RunParallel(context.Background(), jobs, opts, ParallelOptions{})); !slices.Equal(got, tc.want) {
			t.Errorf("RunParallel with %v: %q, want %q", tc.side, got, tc.want)
		}
	}
}
