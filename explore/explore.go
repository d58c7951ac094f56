package explore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// Options configure one exploration.
type Options struct {
	// Seeds is how many seeds to run (across all shards); 0 with Budget = until the budget is spent.
	Seeds uint64
	// Budget bounds the exploration's wall time (0 = none).
	Budget time.Duration
	// Seed is the first seed.
	Seed uint64
	// Engines: the first is the reference (sim); each other engine runs the
	// same scenario and any difference is a divergence.
	Engines []engine.Engine
	// Versions restrict the generator's Mooncake versions.
	Versions []string
	// Config weights the generator to configuration (GenOptions.Config).
	Config bool
	// Shard i of n: this process runs the seeds s with (s-Seed) % n == i.
	Shard, Shards uint64
	// Jobs is how many scenarios run at once.
	Jobs int
	// RepeatEvery: every k-th run is repeated and must give the same trace hash (0 = 50).
	RepeatEvery uint64
	// Corpus is where minimal failing scenarios are written ("" = nowhere).
	Corpus string
	// ShrinkBudget bounds the runs one shrink may make (0 = 200; wall engines use a tenth).
	ShrinkBudget int
	// Progress is called at most every second with the running totals.
	Progress func(Summary, time.Duration)
	// TimeoutScale for wall engines that honour it (fake).
	TimeoutScale float64
	Logger       *slog.Logger
}

// Summary is the report's summary.
type Summary struct {
	Runs          uint64            `json:"runs"`
	EngineRuns    map[string]uint64 `json:"engine_runs"`
	Skipped       map[string]uint64 `json:"skipped,omitempty"`
	Errors        int               `json:"errors"`
	Violations    int               `json:"violations"`
	Divergences   int               `json:"divergences"`
	RunsPerS      float64           `json:"runs_per_s"`
	WallS         float64           `json:"wall_s"`
	GeneratedHash string            `json:"generated_hash"`
	Seeds         SeedRange         `json:"seeds"`
	// Target is the total number of seeds (for the ETA); 0 with a budget.
	Target uint64 `json:"-"`
}

// SeedRange says which seeds a report covers.
type SeedRange struct {
	First  uint64 `json:"first"`
	Count  uint64 `json:"count"`
	Shard  uint64 `json:"shard"`
	Shards uint64 `json:"shards"`
}

// Finding is one failure: its seed, kind, invariant and corpus file.
type Finding struct {
	Seed      uint64 `json:"seed"`
	Kind      string `json:"kind"` // error | violation | divergence
	Invariant string `json:"invariant"`
	Engine    string `json:"engine"`
	Version   string `json:"mooncake_version"`
	Reason    string `json:"reason"`
	File      string `json:"file,omitempty"`
	// Signature identifies "the same failure" for shrinking and merging.
	Signature string `json:"signature"`
	Shrunk    struct {
		Faults int `json:"faults"`
		Steps  int `json:"steps"`
		Nodes  int `json:"nodes"`
		Runs   int `json:"runs"`
	} `json:"shrunk"`
}

// Report is what --report and --json write.
type Report struct {
	Summary  Summary   `json:"summary"`
	Findings []Finding `json:"findings"`
}

// Finding kinds.
const (
	KindError      = "error"
	KindViolation  = "violation"
	KindDivergence = "divergence"
)

// Explore runs the seeds and returns the report.
func Explore(ctx context.Context, o Options) (Report, error) {
	if len(o.Engines) == 0 {
		return Report{}, fmt.Errorf("explore: no engine")
	}
	if o.Shards == 0 {
		o.Shards = 1
	}
	if o.Shard >= o.Shards {
		return Report{}, fmt.Errorf("explore: shard %d/%d: the index must be below the count", o.Shard, o.Shards)
	}
	if o.Jobs <= 0 {
		o.Jobs = 1
	}
	if o.RepeatEvery == 0 {
		o.RepeatEvery = 50
	}
	if o.Seeds == 0 && o.Budget == 0 {
		return Report{}, fmt.Errorf("explore: give --seeds or --time-budget")
	}
	if o.Budget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Budget)
		defer cancel()
	}
	x := &explorer{o: o, gen: GenOptions{Versions: o.Versions, Config: o.Config}, start: time.Now()}
	for _, e := range o.Engines {
		if wallEngine(e) {
			x.gen.Wall = true
		}
		if sc := x.scaleOf(e); sc < 1 {
			x.gen.InitLag = int(math.Ceil(FakeInitLag.Seconds() / sc))
			x.gen.StepLag = int(math.Ceil(FakeStepLag.Seconds() / sc))
			x.gen.MinRPCTimeoutMS = int(math.Ceil(float64(FakeMinRPCTimeout.Milliseconds()) / sc))
		}
	}
	x.sum.EngineRuns = map[string]uint64{}
	x.sum.Skipped = map[string]uint64{}
	x.sum.Seeds = SeedRange{First: o.Seed, Count: o.Seeds, Shard: o.Shard, Shards: o.Shards}
	if o.Seeds > 0 {
		x.sum.Target = (o.Seeds + o.Shards - 1 - o.Shard) / o.Shards
	}
	seeds := make(chan uint64)
	var wg sync.WaitGroup
	for range o.Jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range seeds {
				x.one(ctx, s)
			}
		}()
	}
	stopProgress := x.progress(ctx)
feed:
	for i := o.Shard; o.Seeds == 0 || i < o.Seeds; i += o.Shards {
		select {
		case <-ctx.Done():
			break feed
		case seeds <- o.Seed + i:
		}
	}
	close(seeds)
	wg.Wait()
	stopProgress()
	return x.report(), nil
}

// The engine every other is compared with is the model (engine.Model: the
// first registered deterministic engine). Not to be confused with
// engine.IsReference, the real system.

// wallEngine: every engine but a deterministic one runs in wall time.
func wallEngine(e engine.Engine) bool { return !engine.CapsOf(e.Name()).Has(engine.Deterministic) }

type explorer struct {
	o     Options
	gen   GenOptions
	start time.Time

	mu       sync.Mutex
	sum      Summary
	hashes   []seedHash
	findings []Finding
	seen     map[string]bool // finding signatures already shrunk
}

type seedHash struct {
	seed uint64
	h    [32]byte
}

func (x *explorer) log() *slog.Logger {
	if x.o.Logger != nil {
		return x.o.Logger
	}
	return slog.New(slog.DiscardHandler)
}

func (x *explorer) progress(ctx context.Context) func() {
	if x.o.Progress == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				x.mu.Lock()
				s := x.sum
				x.mu.Unlock()
				x.o.Progress(s, time.Since(x.start))
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// runOpts are the options of every run of a generated scenario.
func (x *explorer) runOpts(seed uint64) scenarios.Options {
	return scenarios.Options{Seed: seed, TimeoutScale: x.o.TimeoutScale, Invariants: Check, Logger: x.o.Logger}
}

// one generates, runs and judges one seed on every engine.
func (x *explorer) one(ctx context.Context, seed uint64) {
	doc := Generate(seed, x.gen)
	sc, err := doc.Scenario()
	h := sha256.Sum256(doc.Canonical())
	x.mu.Lock()
	x.hashes = append(x.hashes, seedHash{seed, h})
	x.mu.Unlock()
	if err != nil {
		x.record(ctx, Finding{Seed: seed, Kind: KindError, Invariant: InvHarness, Reason: "generated scenario does not load: " + err.Error()}, doc, nil)
		return
	}
	version := doc.Mooncake.Versions[0]
	ref := x.o.Engines[0]
	res := scenarios.RunVersion(ctx, sc, ref, version, x.runOpts(seed))
	if ctx.Err() != nil {
		return
	}
	x.count(ref.Name(), res)
	if f, bad := judge(res); bad {
		f.Seed = seed
		x.record(ctx, f, doc, []engine.Engine{ref})
		return
	}
	if x.o.RepeatEvery > 0 && seed%x.o.RepeatEvery == 0 && res.Verdict != scenarios.Skip && !wallEngine(ref) {
		again := scenarios.RunVersion(ctx, sc, ref, version, x.runOpts(seed))
		if again.TraceHash != res.TraceHash {
			x.record(ctx, Finding{Seed: seed, Kind: KindViolation, Invariant: InvDeterministic, Engine: ref.Name(), Version: version,
				Reason: fmt.Sprintf("same seed, trace hashes %s and %s", res.TraceHash, again.TraceHash)}, doc, []engine.Engine{ref})
			return
		}
	}
	for _, other := range x.o.Engines[1:] {
		ores := scenarios.RunVersion(ctx, sc, other, version, x.runOpts(seed))
		if ctx.Err() != nil {
			return
		}
		x.count(other.Name(), ores)
		if f, bad := judge(ores); bad {
			f.Seed = seed
			x.record(ctx, f, doc, []engine.Engine{other})
			continue
		}
		if res.Verdict == scenarios.Skip || ores.Verdict == scenarios.Skip {
			continue
		}
		if diff := DivergesAt(res, ores, x.scaleOf(other)); diff != "" {
			x.record(ctx, Finding{Seed: seed, Kind: KindDivergence, Invariant: InvDivergence, Engine: ref.Name() + "," + other.Name(), Version: version, Reason: diff}, doc, []engine.Engine{ref, other})
		}
	}
}

// scaleOf is the timeout scale e runs at (1 unless it honours TimeoutScale).
func (x *explorer) scaleOf(e engine.Engine) float64 {
	if ts, ok := e.(engine.TimeoutScaler); ok && ts.HonoursTimeoutScale() && x.o.TimeoutScale > 0 && x.o.TimeoutScale < 1 {
		return x.o.TimeoutScale
	}
	return 1
}

func (x *explorer) count(engine string, r scenarios.Result) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if r.Verdict == scenarios.Skip {
		x.sum.Skipped[engine]++
		return
	}
	x.sum.EngineRuns[engine]++
	if engine == x.o.Engines[0].Name() {
		x.sum.Runs++
	}
}

// judge classifies one result: a harness error or a broken invariant.
func judge(r scenarios.Result) (Finding, bool) {
	f := Finding{Engine: r.Engine, Version: r.MooncakeVersion, Reason: r.Reason}
	switch r.Verdict {
	case scenarios.Error:
		if MasterRejectsFlag(r.Reason) {
			return f, false // Mooncake's own answer to the config: no master
		}
		f.Kind, f.Invariant = KindError, InvHarness
		return f, true
	case scenarios.Fail:
		f.Kind = KindViolation
		f.Invariant = "expect"
		if rest, ok := strings.CutPrefix(r.Reason, "invariant "); ok {
			f.Invariant, _, _ = strings.Cut(rest, ":")
		} else if rest, ok := strings.CutPrefix(r.Reason, "remedy: invariant "); ok {
			f.Invariant, _, _ = strings.Cut(rest, ":")
		}
		return f, true
	}
	return f, false
}

// record shrinks a finding (once per signature) and writes it to the corpus.
func (x *explorer) record(ctx context.Context, f Finding, doc *Doc, engs []engine.Engine) {
	f.Signature = signature(f)
	x.mu.Lock()
	switch f.Kind {
	case KindError:
		x.sum.Errors++
	case KindViolation:
		x.sum.Violations++
	case KindDivergence:
		x.sum.Divergences++
	}
	if x.seen == nil {
		x.seen = map[string]bool{}
	}
	dup := x.seen[f.Signature]
	x.seen[f.Signature] = true
	x.mu.Unlock()
	x.log().Warn("explore: finding", "seed", f.Seed, "kind", f.Kind, "invariant", f.Invariant, "reason", f.Reason)
	if !dup && engs != nil && ctx.Err() == nil {
		budget := x.o.ShrinkBudget
		if budget <= 0 {
			budget = 200
			for _, e := range engs {
				if wallEngine(e) {
					budget = 20
				}
			}
		}
		min, runs := Shrink(ctx, doc, budget, func(d *Doc) bool { return x.sameFailure(ctx, d, f, engs) })
		doc = min
		f.Shrunk.Runs = runs
	}
	f.Shrunk.Faults, f.Shrunk.Steps, f.Shrunk.Nodes = len(doc.Faults), len(doc.Steps), len(doc.Topology.Nodes)
	if !dup && x.o.Corpus != "" {
		file, err := WriteCorpus(x.o.Corpus, doc, f, engs)
		if err != nil {
			x.log().Error("explore: write corpus", "err", err)
		}
		f.File = file
	}
	x.mu.Lock()
	x.findings = append(x.findings, f)
	x.mu.Unlock()
}

// signature is "the same failure": kind, invariant and the reason with
// numbers, seeds and addresses removed.
func signature(f Finding) string {
	r := f.Reason
	if i := strings.IndexAny(r, "0123456789"); i >= 0 && f.Kind != KindDivergence {
		r = digits.ReplaceAllString(r, "N")
	}
	if len(r) > 160 {
		r = r[:160]
	}
	return f.Kind + "|" + f.Invariant + "|" + r
}

// sameFailure runs a candidate and reports whether it fails as f did.
func (x *explorer) sameFailure(ctx context.Context, d *Doc, f Finding, engs []engine.Engine) bool {
	sc, err := d.Scenario()
	if err != nil {
		return false
	}
	version := d.Mooncake.Versions[0]
	var rs []scenarios.Result
	for _, e := range engs {
		r := scenarios.RunVersion(ctx, sc, e, version, x.runOpts(f.Seed))
		rs = append(rs, r)
	}
	switch f.Kind {
	case KindDivergence:
		if len(rs) < 2 || rs[0].Verdict == scenarios.Skip || rs[1].Verdict == scenarios.Skip {
			return false
		}
		return sameDiff(DivergesAt(rs[0], rs[1], x.scaleOf(engs[1])), f.Reason)
	case KindViolation:
		if f.Invariant == InvDeterministic {
			again := scenarios.RunVersion(ctx, sc, engs[0], version, x.runOpts(f.Seed))
			return again.TraceHash != rs[0].TraceHash
		}
		g, bad := judge(rs[0])
		return bad && g.Kind == f.Kind && g.Invariant == f.Invariant
	default:
		g, bad := judge(rs[0])
		return bad && signature(Finding{Kind: g.Kind, Invariant: g.Invariant, Reason: g.Reason}) == f.Signature
	}
}

func (x *explorer) report() Report {
	x.mu.Lock()
	defer x.mu.Unlock()
	s := x.sum
	s.WallS = time.Since(x.start).Seconds()
	if s.WallS > 0 {
		s.RunsPerS = float64(s.Runs) / s.WallS
	}
	var sum [32]byte
	for _, sh := range x.hashes {
		sum = addHash(sum, sh.h)
	}
	s.GeneratedHash = "sha256:" + hex.EncodeToString(sum[:])
	if x.o.Seeds == 0 {
		s.Seeds.Count = uint64(len(x.hashes))
	}
	fs := slices.Clone(x.findings)
	slices.SortFunc(fs, func(a, b Finding) int { return cmpU(a.Seed, b.Seed) })
	if fs == nil {
		fs = []Finding{}
	}
	return Report{Summary: s, Findings: fs}
}

// addHash adds two 256-bit big-endian numbers mod 2^256. generated_hash is
// the sum of the SHA-256 of every generated scenario's YAML: independent of
// run order and -j, and the merge of shard reports is the sum of theirs.
func addHash(a, b [32]byte) [32]byte {
	var out [32]byte
	carry := 0
	for i := 31; i >= 0; i-- {
		v := int(a[i]) + int(b[i]) + carry
		out[i], carry = byte(v), v>>8
	}
	return out
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Found reports whether anything was found (exit status 1).
func (r Report) Found() bool {
	return r.Summary.Errors+r.Summary.Violations+r.Summary.Divergences > 0
}

// MasterRejectsFlag: the world did not start because mooncake_master
// exited on a flag value its release rejects (gflags' "illegal value",
// ParseDurationMs' "Invalid value for --…"; real 0.3.9, 0.3.11.post1 and
// 0.3.13.post1, sim alike). The generator draws invalid master flags
// (mooncake.Knobs); that outcome is Mooncake's, not the harness's.
func MasterRejectsFlag(reason string) bool {
	return strings.Contains(reason, "exited (exit status 1)") &&
		(strings.Contains(reason, "illegal value '") || strings.Contains(reason, "Invalid value for --"))
}
