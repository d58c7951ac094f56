package suites_test

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/explain"
	"github.com/mooncake-faultlab/faultlab/faults/toxiproxy"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/realengine"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// engineSuite is how one engine runs the catalog. catalogSuite builds
// every engine's catalog suite from it: one entry per scenario × version
// the engine runs, each must pass, and a skip must be one the engine's
// floor allows — so a regression that turns runs into skips fails.
type engineSuite struct {
	// name is the engine's registry name.
	name      string
	newEngine func() engine.Engine
	opts      scenarios.Options
	// include filters the catalog beyond RunsOn (e.g. slow-wall scenarios
	// only nightly); nil = every scenario that runs on the engine.
	include func(*scenarios.Scenario) bool
	// available: when it fails the whole suite skips with its reason (an
	// engine with nothing installed here).
	available func(context.Context) error
	// maySkip is the engine's skip floor: whether a run of sc at version
	// may be a skip. nil = never.
	maySkip func(sc *scenarios.Scenario, version string) bool
	// wrap wraps the engine of each run (leak checks record addresses).
	wrap func(engine.Engine) engine.Engine
	// agree: compare every result with sim's (return codes, exception,
	// process death). timings: also the time in each Mooncake method,
	// within scenarios.TimingDiffs' band (a run off it is measured up to
	// twice more and judged by the median).
	agree, timings bool
	// beforeAll and after run before the table and after it (leak checks).
	beforeAll func()
	after     func()
	// explained lists the runs (scenario@version) whose own log `faultlab
	// explain` does not name first (a racy-timing world's: not among the
	// first three), each a documented gap; nil = no
	// explain spec. The spec fails on any other miss, and on a listed one
	// that stops missing (update the list and the doc).
	explained []string
	// parallel > 1 runs the selected entries first as that many parallel
	// worlds (as `faultlab run -j`), for engines that mostly wait out
	// Mooncake's timeouts; the entries then assert the results.
	parallel int
	// containers: every party runs in a container, so container faults
	// are injected; elsewhere a scenario labelled container must skip
	// saying it needs a container world.
	containers bool
	// memo shares this suite's runs with other suites that need the same
	// run (nil = none): runs found there are not run again.
	memo *runMemo
	// modelsContainers: the engine runs a scenario labelled container in
	// its modelled container world (scenarios.ContainerModel: sim), so it
	// must pass there like any other.
	modelsContainers bool
	// title and labels add to the suite's name and labels.
	title  string
	labels []string
	// nightly says which entries only `make nightly` / `make test-all`
	// run (label nightly; `make test` filters !nightly); nil = none.
	nightly func(sc *scenarios.Scenario, version string) bool
}

// nightlyLabel marks specs `make test` leaves to `make nightly` and
// `make test-all` (the Makefile's CI_LABELS).
const nightlyLabel = "nightly"

// containerActionsOnly keeps, of a catalog in containers, one world per
// container scenario at its newest version an image carries for `make
// test`: every container action once. The rest of the catalog in
// containers repeats what the process catalog checks and runs nightly.
func containerActionsOnly(sc *scenarios.Scenario, version string) bool {
	vs, _ := sc.Versions("")
	ready := imageReady()
	for i := len(vs) - 1; i >= 0; i-- {
		if ready[vs[i]] {
			return !sc.HasLabel(scenarios.ContainerLabel) || version != vs[i]
		}
	}
	return true
}

// imageReady is realengine.ImageReady per release, read once (it reads
// each install's marker; the tree asks for every catalog entry).
var imageReady = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, v := range mooncake.Versions {
		m[v] = realengine.ImageReady(v)
	}
	return m
})

// catalogKey names one scenario × version.
func catalogKey(name, version string) string { return name + "@" + version }

func catalogSuite(s engineSuite) bool {
	return Describe("catalog on the "+s.name+" engine"+s.title, Label(append([]string{s.name}, s.labels...)...), Ordered, func() {
		results := map[string]scenarios.Result{}
		BeforeAll(func(ctx SpecContext) {
			if s.available != nil {
				if err := s.available(ctx); err != nil {
					Skip(err.Error())
				}
			}
			if s.beforeAll != nil {
				s.beforeAll()
			}
			if s.parallel > 1 {
				prerun(ctx, s, results)
			}
		})

		DescribeTable("scenario", func(ctx SpecContext, name, version string, loadErr error) {
			Expect(loadErr).NotTo(HaveOccurred())
			sc := catalogScenario(name)
			eng := s.newEngine()
			if s.wrap != nil {
				eng = s.wrap(eng)
			}
			r, ok := results[catalogKey(name, version)]
			if !ok {
				r = scenarios.RunVersion(ctx, sc, eng, version, s.opts)
				results[catalogKey(name, version)] = r
			}
			AddReportEntry(catalogKey(name, version), fmt.Sprintf("%s virtual=%.0fms wall=%.1fms %s %s", r.Verdict, r.VirtualMS, r.WallMS, r.TraceHash, r.Reason))
			if sc.HasLabel(scenarios.ContainerLabel) && !s.containers && !s.modelsContainers {
				Expect(r.Verdict).To(Equal(scenarios.Skip), "%s @ %s on %s: %s", name, version, s.name, r.Reason)
				Expect(r.Reason).To(ContainSubstring("needs a container world (faultlab run --containers)"))
				return
			}
			if r.Verdict == scenarios.Skip && s.maySkip != nil && s.maySkip(sc, version) {
				return // an allowed skip: its reason is in the report entry
			}
			if r.Verdict != scenarios.Pass {
				AddReportEntry("what the run saw", runDetail(r))
			}
			Expect(r.Verdict).To(Equal(scenarios.Pass), "%s @ %s on %s: %s", name, version, s.name, r.Reason)
		}, catalogEntries(s))

		if s.agree {
			It("agrees with sim on return codes, exception class and text, and process deaths", Label("agreement"), func(ctx SpecContext) {
				var rerun func(*scenarios.Scenario, string) scenarios.Result
				if s.timings {
					rerun = func(sc *scenarios.Scenario, v string) scenarios.Result {
						return scenarios.RunVersion(ctx, sc, s.newEngine(), v, s.opts)
					}
				}
				agreeWithSim(results, s.name, s.containers, rerun)
			})
		}
		if s.explained != nil {
			It("explain names each passing run's scenario from its own log", Label("explain"), func(ctx SpecContext) {
				misses := explainMisses(ctx, results)
				want := []string{} // the listed gaps among the runs that passed here (focus may leave some out)
				for _, k := range s.explained {
					if r, ok := results[k]; ok && r.Verdict == scenarios.Pass {
						want = append(want, k)
					}
				}
				Expect(misses).To(ConsistOf(want))
			})
		}
		if s.after != nil {
			It("leaves nothing behind", s.after)
		}
	})
}

// prerun runs the entries this ginkgo invocation selects (focus, skip and
// label filter applied as ginkgo applies them) as parallel worlds.
func prerun(ctx context.Context, s engineSuite, results map[string]scenarios.Result) {
	var jobs []scenarios.Job
	for _, j := range selectedJobs(s) {
		if r, ok := s.memo.get(catalogKey(j.Scenario.Name, j.Version)); ok {
			results[catalogKey(j.Scenario.Name, j.Version)] = r
			continue
		}
		jobs = append(jobs, j)
	}
	eng := s.newEngine()
	for _, r := range scenarios.RunParallel(ctx, jobs, s.opts, scenarios.ParallelOptions{Jobs: map[string]int{eng.Name(): s.parallel}}) {
		results[catalogKey(r.Scenario, r.MooncakeVersion)] = r
		s.memo.put(catalogKey(r.Scenario, r.MooncakeVersion), r)
	}
}

// selectedJobs are the suite's entries this ginkgo invocation selects, as
// jobs.
func selectedJobs(s engineSuite) []scenarios.Job {
	cat, err := scenarios.Catalog()
	Expect(err).NotTo(HaveOccurred())
	eng := s.newEngine()
	var jobs []scenarios.Job
	for _, j := range scenarios.Jobs(cat, []engine.Engine{eng}, s.opts) {
		if included(s, j.Scenario, eng) && selected(s, j.Scenario, j.Version) {
			jobs = append(jobs, j)
		}
	}
	return jobs
}

// entryLabels are the labels ginkgo filters an entry of sc by: the
// suite's (its Describe's) and the scenario's.
func entryLabels(s engineSuite, sc *scenarios.Scenario, version string) Labels {
	return append(append(Labels{s.name}, s.labels...), versionLabels(s, sc, version)...)
}

// versionLabels are an entry's own labels: the scenario's, and nightly
// where the suite leaves it to the nightly run.
func versionLabels(s engineSuite, sc *scenarios.Scenario, version string) Labels {
	l := Labels(slices.Clone(sc.Labels))
	if s.nightly != nil && s.nightly(sc, version) {
		l = append(l, nightlyLabel)
	}
	return l
}

// selected: whether ginkgo will run the entry of sc at version.
func selected(s engineSuite, sc *scenarios.Scenario, version string) bool {
	cfg, _ := GinkgoConfiguration()
	if cfg.LabelFilter != "" {
		f, err := types.ParseLabelFilter(cfg.LabelFilter)
		if err == nil && !f(entryLabels(s, sc, version)) {
			return false
		}
	}
	text := "catalog on the " + s.name + " engine" + s.title + " scenario " + sc.Name + " @" + version
	for _, re := range cfg.SkipStrings {
		if regexp.MustCompile(re).MatchString(text) {
			return false
		}
	}
	if len(cfg.FocusStrings) == 0 {
		return true
	}
	for _, re := range cfg.FocusStrings {
		if regexp.MustCompile(re).MatchString(text) {
			return true
		}
	}
	return false
}

// included: the scenario runs on the engine, passes the suite's filter,
// and is not slow-wall there (scenarios.SlowSkip: the rule `faultlab run`
// applies too; FAULTLAB_SLOW=1 includes them).
func included(s engineSuite, sc *scenarios.Scenario, eng engine.Engine) bool {
	if _, slow := scenarios.SlowSkip(sc, eng, s.opts); slow {
		return false
	}
	return sc.RunsOn(s.name) && (s.include == nil || s.include(sc))
}

// catalogEntries is one entry per catalog scenario × version that runs on
// the engine, labelled with the engine and the scenario's labels.
func catalogEntries(s engineSuite) []TableEntry {
	cat, err := scenarios.Catalog()
	if err != nil {
		return []TableEntry{Entry("catalog loads", Label(s.name), "", "", err)}
	}
	eng := s.newEngine()
	var out []TableEntry
	for _, sc := range cat {
		if !included(s, sc, eng) {
			continue
		}
		vs, _ := sc.Versions("")
		for _, v := range vs {
			out = append(out, Entry(sc.Name+" @"+v, versionLabels(s, sc, v), sc.Name, v, nil))
		}
	}
	return out
}

func catalogScenario(name string) *scenarios.Scenario {
	cat, err := scenarios.Catalog()
	Expect(err).NotTo(HaveOccurred())
	scs, err := scenarios.Resolve(cat, []string{name})
	Expect(err).NotTo(HaveOccurred())
	Expect(scs).To(HaveLen(1))
	return scs[0]
}

// explainMisses feeds each passing run's main-phase log (its lines, then
// the exception or the death) to explain at the run's version and returns
// the runs whose scenario is not ranked first (or tied first).
func explainMisses(ctx context.Context, results map[string]scenarios.Result) []string {
	cat, err := scenarios.Catalog()
	Expect(err).NotTo(HaveOccurred())
	fps := map[string]explain.Fingerprints{}
	misses := []string{}
	for _, k := range slices.Sorted(maps.Keys(results)) {
		r := results[k]
		if r.Verdict != scenarios.Pass {
			continue
		}
		if fps[r.MooncakeVersion] == nil {
			fps[r.MooncakeVersion] = explain.Fingerprint(ctx, cat, sim.New(), r.MooncakeVersion)
		}
		log := strings.Join(r.Observed.Logs, "\n") + "\n"
		if e := r.Observed.Exception; e != nil {
			log += e.Class + ": " + e.Message + "\n"
		}
		switch d := r.Observed.Died; {
		case d == nil:
		case d.Signal == "":
			// exit(): the launcher reports the status.
			log += fmt.Sprintf("scheduler exited with code %d\n", d.Exit)
		default:
			log += "scheduler died with " + d.Signal + "\n"
		}
		res, err := explain.Explain(cat, fps[r.MooncakeVersion], log, r.MooncakeVersion)
		Expect(err).NotTo(HaveOccurred())
		rank := slices.IndexFunc(res.Candidates, func(c explain.Candidate) bool { return c.Scenario == r.Scenario })
		for rank > 0 && res.Candidates[rank].Tied {
			rank--
		}
		// A racy world's run on real takes one of the race's sides, and a
		// side can print a sibling's lines (io/peer-departed-pooled: a key
		// whose pooled read waited out the store's 60 s reads like a
		// stalled peer): its cause must be among the first three.
		if rank < 0 || rank > 0 && !(racy(cat, r.Scenario) && rank < 3) {
			misses = append(misses, k)
		}
	}
	return misses
}

// racy: the catalog's scenario name carries scenarios.RacyTimingLabel.
func racy(cat []*scenarios.Scenario, name string) bool {
	i := slices.IndexFunc(cat, func(sc *scenarios.Scenario) bool { return sc.Name == name })
	return i >= 0 && cat[i].HasLabel(scenarios.RacyTimingLabel)
}

// noToxic: a fault of sc has no toxiproxy toxic (its mode's Available says
// why), so engines whose links are toxiproxy proxies skip it.
// loopbackIPv6Only: sc dials a server at this host's IPv6 loopback
// ({{master_ipv6}}, {{metadata_ipv6}}) or sets a master bind address, which
// only process worlds give: container worlds skip it.
func loopbackIPv6Only(sc *scenarios.Scenario) bool {
	if m := sc.Topology.Master; m != nil {
		if _, ok := m.Flags["rpc_address"]; ok {
			return true
		}
		if _, ok := m.Flags["http_metadata_server_host"]; ok {
			return true
		}
	}
	for _, v := range sc.Config.Env {
		if v != nil && (strings.Contains(*v, "{{master_ipv6}}") || strings.Contains(*v, "{{metadata_ipv6}}")) {
			return true
		}
	}
	return false
}

func noToxic(sc *scenarios.Scenario) bool {
	for _, f := range sc.Faults {
		if toxiproxy.Check(f.Fault()) != nil {
			return true
		}
	}
	return false
}

// runDetail is what a failed run saw, for its report: each call's code
// and the log's last lines (a flake on a loaded CI machine is diagnosed
// from the report alone).
func runDetail(r scenarios.Result) string {
	var b strings.Builder
	for _, c := range r.Observed.Calls {
		fmt.Fprintf(&b, "call %s -> %d %v (%.0f ms)\n", c.Method, c.Code, c.Codes, c.MS)
	}
	logs := r.Observed.Logs
	if len(logs) > 60 {
		fmt.Fprintf(&b, "... %d earlier log lines\n", len(logs)-60)
		logs = logs[len(logs)-60:]
	}
	b.WriteString(strings.Join(logs, "\n"))
	return b.String()
}
