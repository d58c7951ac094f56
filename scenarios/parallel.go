package scenarios

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/sglang"
)

// Job is one scenario at one Mooncake version on one engine: the unit a
// parallel run schedules. Index is its place in catalog order.
type Job struct {
	Index    int
	Scenario *Scenario
	Engine   engine.Engine
	Version  string
	// SGLangRelease is the SGLang release the scenario's sglang.versions
	// chose for this job ("" = the side's own); a side the user pinned to
	// a release ignores it (RunParallel keeps one job per scenario then).
	SGLangRelease string
	// Bound is the run's wall-clock limit (what a progress line shows).
	Bound time.Duration
	// skip, when set, is the result without running (the scenario does
	// not apply to the requested version, or it is slow-wall).
	skip *Result
}

// Name is "scenario @version on engine" (with "sglang R" when the
// scenario chose the SGLang release).
func (j Job) Name() string {
	if j.SGLangRelease != "" {
		return fmt.Sprintf("%s @%s sglang %s on %s", j.Scenario.Name, j.Version, j.SGLangRelease, j.Engine.Name())
	}
	return fmt.Sprintf("%s @%s on %s", j.Scenario.Name, j.Version, j.Engine.Name())
}

// ParallelOptions tune RunParallel.
type ParallelOptions struct {
	// Jobs is how many worlds of each engine run at once; engines absent
	// (or <= 0) get DefaultJobs.
	Jobs map[string]int
	// Started and Finished, when set, are called as each job starts and
	// ends (from worker goroutines: they must be safe for concurrent use).
	Started  func(Job)
	Finished func(Job, Result)
}

// DefaultJobs is how many worlds of an engine run at once by default: a
// virtual-time engine is CPU-bound (one per core); a wall engine that
// scales Mooncake's timeouts is timing-sensitive (one per core); a wall
// engine that waits out Mooncake's real timeouts mostly sleeps, so it
// runs three per core.
func DefaultJobs(eng engine.Engine, opts Options) int {
	r := &run{eng: eng, opts: opts}
	n := runtime.GOMAXPROCS(0)
	if Wall(eng) && r.wallScale() == 1 {
		return 3 * n
	}
	return n
}

// Jobs expands scenarios × engines × versions in catalog order (scenario
// first, then engine, then version), as RunParallel runs them.
func Jobs(scs []*Scenario, engs []engine.Engine, opts Options) []Job {
	var out []Job
	for _, sc := range scs {
		for _, e := range engs {
			vs, ok := sc.Versions(opts.Version)
			if !ok {
				res := notApplicable(sc, e, opts)
				out = append(out, Job{Index: len(out), Scenario: sc, Engine: e, Version: opts.Version, skip: &res})
				continue
			}
			for _, v := range vs {
				for _, rel := range sc.SGLangReleases() {
					r := &run{sc: sc, eng: e, version: v, opts: opts}
					j := Job{Index: len(out), Scenario: sc, Engine: e, Version: v, SGLangRelease: rel, Bound: r.bound()}
					if reason, slow := SlowSkip(sc, e, opts); slow {
						res := Result{Scenario: sc.Name, Engine: e.Name(), MooncakeVersion: v, Seed: opts.Seed, Source: sc.Source, Verdict: Skip, Reason: reason, SGLangVersion: rel}
						j.skip = &res
					}
					out = append(out, j)
				}
			}
		}
	}
	return out
}

// SlowEnv names the environment variable that lets slow-wall scenarios
// run on engines that wait out Mooncake's real timeouts.
const SlowEnv = "FAULTLAB_SLOW"

// SlowLabel marks scenarios that take minutes of wall time where
// Mooncake's timeouts are not scaled.
const SlowLabel = "slow-wall"

// RacyTimingLabel marks scenarios whose time per Mooncake method varies
// between real runs by a race inside Mooncake (the HA failover: whether a
// call finds a pooled connection to the dead leader, EOF at once, or must
// reconnect, 4.27 s): the agreement suites compare their codes, not times.
const RacyTimingLabel = "racy-timing"

// RacyOutcomeLabel marks scenarios whose outcome on a wall-clock engine
// hangs, rarely, on a race inside Mooncake the world cannot pin (an offload
// heartbeat that falls between two steps): a failed run there is run once
// more (interference), and the YAML says which race.
const RacyOutcomeLabel = "racy-outcome"

// SlowSkip is the one rule for slow-wall scenarios, used by `run` and the
// suites alike: on wall-clock engines they are skipped unless opts.Slow or
// $FAULTLAB_SLOW is set. They take minutes of Mooncake time (the blackholed
// master: 602 s; 12 s even at the fake engine's 0.02 scale), so they run
// every time on sim and nightly on the wall engines.
func SlowSkip(sc *Scenario, eng engine.Engine, opts Options) (string, bool) {
	if !sc.HasLabel(SlowLabel) || opts.Slow || os.Getenv(SlowEnv) != "" {
		return "", false
	}
	if !Wall(eng) {
		return "", false
	}
	return fmt.Sprintf("%s: minutes of Mooncake time on a wall-clock engine; run with --slow or %s=1", SlowLabel, SlowEnv), true
}

// Shard keeps the jobs of shard i of n (0-based, as `explore --shard`):
// every n-th job in catalog order, so shards are balanced and disjoint and
// their union is the whole run.
func Shard(jobs []Job, i, n int) []Job {
	if n <= 1 {
		return jobs
	}
	var out []Job
	for k, j := range jobs {
		if k%n == i {
			out = append(out, j)
		}
	}
	return out
}

// ShardHelp is the one description of --shard K/N, for run and explore.
const ShardHelp = "K/N with 0 <= K < N, 0-based like GitHub's matrix index and Kubernetes' JOB_COMPLETION_INDEX (GitLab's 1-based CI_NODE_INDEX: $((CI_NODE_INDEX-1))/$CI_NODE_TOTAL)"

// ParseShard parses "K/N" (0 <= K < N), the one syntax of run's and
// explore's --shard.
func ParseShard(s string) (k, n int, err error) {
	if _, err := fmt.Sscanf(s, "%d/%d", &k, &n); err != nil || k < 0 || n < 1 || k >= n || fmt.Sprintf("%d/%d", k, n) != s {
		return 0, 0, fmt.Errorf("--shard %q: want %s, e.g. 0/4 … 3/4", s, ShardHelp)
	}
	return k, n, nil
}

// RunParallel runs jobs, each engine's in up to its Jobs worlds at once,
// and returns the results in the jobs' order whatever order they finish
// in. Long jobs start first (by bound), so the slowest one does not start
// last. After ctx is cancelled, jobs not yet started are not run.
func RunParallel(ctx context.Context, jobs []Job, opts Options, p ParallelOptions) []Result {
	jobs = forSide(jobs, opts.sglangSide())
	results := make([]Result, len(jobs))
	ran := make([]bool, len(jobs))
	pos := make(map[int]int, len(jobs)) // Index → place in jobs (a shard's Indexes have gaps)
	for k, j := range jobs {
		pos[j.Index] = k
	}
	queues := map[string][]Job{}
	var engNames []string
	for _, j := range jobs {
		n := j.Engine.Name()
		if _, ok := queues[n]; !ok {
			engNames = append(engNames, n)
		}
		queues[n] = append(queues[n], j)
	}
	var wg sync.WaitGroup
	for _, name := range engNames {
		q := queues[name]
		slices.SortStableFunc(q, func(a, b Job) int { return cmp.Compare(b.Bound, a.Bound) })
		workers := p.Jobs[name]
		if workers <= 0 {
			workers = DefaultJobs(q[0].Engine, opts)
		}
		ch := make(chan Job)
		for range min(workers, len(q)) {
			wg.Go(func() {
				for j := range ch {
					if p.Started != nil {
						p.Started(j)
					}
					var r Result
					if j.skip != nil {
						r = *j.skip
					} else {
						r = runAtRelease(ctx, j.Scenario, j.Engine, j.Version, j.SGLangRelease, opts)
					}
					results[pos[j.Index]], ran[pos[j.Index]] = r, true
					if p.Finished != nil {
						p.Finished(j, r)
					}
				}
			})
		}
		wg.Go(func() {
			defer close(ch)
			for _, j := range q {
				select {
				case ch <- j:
				case <-ctx.Done():
					return
				}
			}
		})
	}
	wg.Wait()
	var out []Result
	for i, r := range results {
		if ran[i] {
			out = append(out, r)
		}
	}
	return out
}

// forSide drops the per-release jobs a pinned side cannot honour: a side
// the user pinned plays its release in one job per scenario, Mooncake
// version and engine (the first), with the scenario's choice cleared.
func forSide(jobs []Job, side sglang.Side) []Job {
	if rt, ok := side.(sglang.Retargetable); ok && !rt.Pinned() {
		return jobs
	}
	type key struct {
		sc      *Scenario
		eng, ve string
	}
	seen := map[key]bool{}
	var out []Job
	for _, j := range jobs {
		k := key{j.Scenario, j.Engine.Name(), j.Version}
		if seen[k] {
			continue
		}
		seen[k] = true
		j.SGLangRelease = ""
		if j.skip != nil {
			r := *j.skip
			r.SGLangVersion = ""
			j.skip = &r
		}
		out = append(out, j)
	}
	return out
}
