package explore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// The local equivalent of a CI matrix / Kubernetes indexed Job: three
// shards cover the seeds with no overlap, and their merged report equals
// the unsharded one (runs and generated hash).
func TestShardsMergeToTheWhole(t *testing.T) {
	ctx := context.Background()
	base := Options{Seeds: 90, Seed: 7, Engines: []engine.Engine{sim.New()}, Jobs: 2}
	whole, err := Explore(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	var parts []Report
	for i := range uint64(3) {
		o := base
		o.Shard, o.Shards = i, 3
		r, err := Explore(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if r.Summary.Runs != 30 {
			t.Fatalf("shard %d ran %d seeds, want 30", i, r.Summary.Runs)
		}
		parts = append(parts, r)
	}
	m, err := Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	if m.Summary.Runs != 90 || m.Summary.GeneratedHash != whole.Summary.GeneratedHash {
		t.Fatalf("merged %d runs %s, whole %d runs %s", m.Summary.Runs, m.Summary.GeneratedHash, whole.Summary.Runs, whole.Summary.GeneratedHash)
	}
	if _, err := Merge([]Report{parts[0], parts[0]}); err == nil || !strings.Contains(err.Error(), "shard 0/3 given twice") {
		t.Fatalf("merging a shard twice: %v", err)
	}
	// A different seed range hashes differently.
	o := base
	o.Seed = 8
	other, _ := Explore(ctx, o)
	if other.Summary.GeneratedHash == whole.Summary.GeneratedHash {
		t.Fatal("generated_hash does not depend on the seeds")
	}
}

func TestMergeKeepsOneFindingPerSignature(t *testing.T) {
	f := func(seed uint64) Finding {
		return Finding{Seed: seed, Kind: KindViolation, Invariant: InvRecovers, Signature: "violation|recovers|x"}
	}
	hash := "sha256:" + strings.Repeat("0", 64)
	a := Report{Summary: Summary{Runs: 1, Violations: 1, GeneratedHash: hash, Seeds: SeedRange{Shard: 0, Shards: 2}}, Findings: []Finding{f(9)}}
	b := Report{Summary: Summary{Runs: 1, Violations: 1, GeneratedHash: hash, Seeds: SeedRange{Shard: 1, Shards: 2}}, Findings: []Finding{f(4)}}
	m, err := Merge([]Report{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Findings) != 1 || m.Findings[0].Seed != 4 || m.Summary.Violations != 2 {
		t.Fatalf("merged findings %+v, violations %d", m.Findings, m.Summary.Violations)
	}
}

func TestKnownTexts(t *testing.T) {
	for _, c := range []struct {
		class, msg string
		ok         bool
	}{
		{"RuntimeError", "Failed to setup Mooncake store, error code: -600", true},
		{"RuntimeError", "Failed to setup Mooncake store, error code: x", false},
		{"RuntimeError", "Failed to register buffer to Mooncake Store, error code: -1", true},
		{"ValueError", "Failed to setup Mooncake store, error code: -1", false},
		{"AttributeError", "'mooncake.store.MooncakeDistributedStore' object has no attribute 'health_check'", true},
		{"KeyError", "'x'", false},
	} {
		if _, ok := KnownText(c.class, c.msg); ok != c.ok {
			t.Errorf("KnownText(%s, %q) = %v, want %v", c.class, c.msg, ok, c.ok)
		}
	}
	if _, ok := KnownDeath("SIGSEGV", "0.3.9"); !ok {
		t.Error("0.3.9's SIGSEGV is documented")
	}
	for _, v := range []string{"0.3.10.post1", "0.3.10.post2"} {
		if _, ok := KnownDeath("SIGSEGV", v); !ok {
			t.Errorf("%s's memcpy from another process's replica is documented", v)
		}
	}
	if _, ok := KnownDeath("SIGSEGV", "0.3.11.post1"); ok {
		t.Error("0.3.11 compares the whole endpoint: no memcpy SIGSEGV")
	}
	if _, ok := KnownDeath("SIGSEGV", "0.3.13.post1"); ok {
		t.Error("0.3.13.post1 is not known to segfault")
	}
	if _, ok := KnownDeath("exit 1", "0.3.11.post1"); !ok {
		t.Error("0.3.11.post1 exits 1 on an invalid MC_MTU")
	}
	if _, ok := KnownDeath("exit 1", "0.3.12.post1"); ok {
		t.Error("0.3.12 logs an invalid MC_MTU and goes on")
	}
}

func parse(t *testing.T, y string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Parse("t.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

const ioScenario = `name: t/io
mooncake: {versions: ["0.3.13.post1"]}
config: {env: {MOONCAKE_MASTER: "{{master}}", MOONCAKE_PROTOCOL: tcp, MOONCAKE_GLOBAL_SEGMENT_SIZE: "67108864"}}
steps:
  - init: tp0
  - set: {pages: [page0]}
  - get: {pages: [page0, page1]}
  - exists: {pages: [page0, page1]}
expect: {invariants: true}
`

// The invariants reject what they must: a phantom page, a lost page, an
// unknown text, an unknown death, a phase past its bound.
func TestInvariantsCatchViolations(t *testing.T) {
	ctx := context.Background()
	sc := parse(t, ioScenario)
	res := scenarios.RunVersion(ctx, sc, sim.New(), "0.3.13.post1", scenarios.Options{Seed: 1})
	if res.Verdict != scenarios.Pass {
		t.Fatalf("%s: %s", res.Verdict, res.Reason)
	}
	if inv, why := Check(ctx, sc, sim.New(), &res); inv != "" {
		t.Fatalf("a healthy run broke %s: %s", inv, why)
	}
	mutate := func(f func(r *scenarios.Result)) string {
		r := res
		r.Observed.Steps = append([]scenarios.StepResult(nil), res.Observed.Steps...)
		f(&r)
		inv, _ := Check(ctx, sc, sim.New(), &r)
		return inv
	}
	if inv := mutate(func(r *scenarios.Result) { r.Observed.Steps[1].Result = []any{true, true} }); inv != InvData {
		t.Errorf("phantom page1 on get: %q", inv)
	}
	if inv := mutate(func(r *scenarios.Result) { r.Observed.Steps[1].Result = []any{false, false} }); inv != InvData {
		t.Errorf("page0 lost without a fault: %q", inv)
	}
	if inv := mutate(func(r *scenarios.Result) { r.Observed.Steps[1].Result = []any{"corrupt: page0__k holds 0x1", false} }); inv != InvData {
		t.Errorf("page0 read back with the wrong content: %q", inv)
	}
	if inv := mutate(func(r *scenarios.Result) { r.Observed.Steps[2].Result = int64(2) }); inv != InvData {
		t.Errorf("page1 exists: %q", inv)
	}
	if inv := mutate(func(r *scenarios.Result) {
		r.Observed.Exception = &scenarios.Exception{Class: "KeyError", Message: "'x'"}
	}); inv != InvTexts {
		t.Errorf("unknown text: %q", inv)
	}
	if inv := mutate(func(r *scenarios.Result) { r.Observed.Died = &scenarios.Death{Signal: "SIGSEGV"} }); inv != InvTexts {
		t.Errorf("unknown death: %q", inv)
	}
	if inv := mutate(func(r *scenarios.Result) { r.Observed.DurationMS = 1e9 }); inv != InvPhaseBound {
		t.Errorf("phase of 11 days: %q", inv)
	}
}

func TestPhaseBoundFollowsTimeoutsAndRetries(t *testing.T) {
	sc := parse(t, `name: t/b
config: {env: {MOONCAKE_MASTER: "{{master}}", MC_RPC_TIMEOUT_MS: "1000", MC_RPC_CONNECT_TIMEOUT_MS: "1000", MC_STORE_CLIENT_SETUP_RETRIES: "2"}}
steps: [{init: tp0}, {sleep: 10s}]
expect: {invariants: true}
`)
	long := PhaseBound(sc, "0.3.11.post1", sc.Steps) // no MC_RPC_* before 0.3.12: 30 s timeouts
	short := PhaseBound(sc, "0.3.13.post1", sc.Steps)
	if !(short < long) || short < 10e9 {
		t.Fatalf("bound 0.3.13.post1 %s, 0.3.11.post1 %s", short, long)
	}
}

// A failing scenario shrinks to the smallest one failing the same way.
func TestShrinkFindsMinimal(t *testing.T) {
	d := Generate(3, GenOptions{})
	d.Faults = append(d.Faults, DocFault{At: "5s", Kind: "process", Target: "master", Action: "restart"}, DocFault{At: "0s", Kind: "master-down", Mode: "refuse"})
	d.Steps = append(d.Steps, DocStep{Sleep: "40s"}, DocStep{HealthCheck: "tp0"})
	// "Fails" while a refused master-down is scheduled.
	fails := func(c *Doc) bool {
		for _, f := range c.Faults {
			if f.Kind == "master-down" && f.Mode == "refuse" {
				return true
			}
		}
		return false
	}
	min, runs := Shrink(context.Background(), d, 500, fails)
	if len(min.Faults) != 1 || len(min.Steps) != 1 || min.Remedy != nil || len(min.Config.Env)+len(min.Config.File)+len(min.Config.ExtraConfig) != 0 {
		t.Fatalf("after %d runs: %s", runs, min.Marshal())
	}
}

func TestWriteCorpusReplays(t *testing.T) {
	dir := t.TempDir()
	d := Generate(5, GenOptions{})
	f := Finding{Seed: 5, Kind: KindViolation, Invariant: InvData, Engine: "sim", Version: d.Mooncake.Versions[0], Reason: "page x lost"}
	path, err := WriteCorpus(dir, d, f, []engine.Engine{sim.New()})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	for _, want := range []string{"# Found by faultlab explore (seed 5", "invariant: data", "# reproduce: faultlab run " + filepath.Join(dir, "violation-data-seed-5.yaml") + " --engine sim --seed 5"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("corpus file lacks %q:\n%s", want, b)
		}
	}
	scs, err := scenarios.LoadDir(dir)
	if err != nil || len(scs) != 1 || scs[0].Name != "regressions/violation-data-seed-5" {
		t.Fatalf("LoadDir: %v %v", scs, err)
	}
}
