package suites_test

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/scenarios"
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
	// process death).
	agree bool
	// beforeAll and after run before the table and after it (leak checks).
	beforeAll func()
	after     func()
	// containers: every party runs in a container, so container faults
	// are injected; elsewhere a scenario labelled container must skip
	// saying it needs a container world.
	containers bool
	// title and labels add to the suite's name and labels.
	title  string
	labels []string
}

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
		})

		DescribeTable("scenario", func(ctx SpecContext, name, version string, loadErr error) {
			Expect(loadErr).NotTo(HaveOccurred())
			sc := catalogScenario(name)
			eng := s.newEngine()
			if s.wrap != nil {
				eng = s.wrap(eng)
			}
			r := scenarios.RunVersion(ctx, sc, eng, version, s.opts)
			results[catalogKey(name, version)] = r
			AddReportEntry(catalogKey(name, version), fmt.Sprintf("%s virtual=%.0fms wall=%.1fms %s %s", r.Verdict, r.VirtualMS, r.WallMS, r.TraceHash, r.Reason))
			if sc.HasLabel("container") && !s.containers {
				Expect(r.Verdict).To(Equal(scenarios.Skip), "%s @ %s on %s: %s", name, version, s.name, r.Reason)
				Expect(r.Reason).To(ContainSubstring("needs a container world (faultlab run --containers)"))
				return
			}
			if r.Verdict == scenarios.Skip && s.maySkip != nil && s.maySkip(sc, version) {
				return // an allowed skip: its reason is in the report entry
			}
			Expect(r.Verdict).To(Equal(scenarios.Pass), "%s @ %s on %s: %s", name, version, s.name, r.Reason)
		}, catalogEntries(s))

		if s.agree {
			It("agrees with sim on return codes, exception class and text, and process deaths", Label("agreement"), func() {
				agreeWithSim(results, s.name)
			})
		}
		if s.after != nil {
			It("leaves nothing behind", s.after)
		}
	})
}

// catalogEntries is one entry per catalog scenario × version that runs on
// the engine, labelled with the engine and the scenario's labels.
func catalogEntries(s engineSuite) []TableEntry {
	cat, err := scenarios.Catalog()
	if err != nil {
		return []TableEntry{Entry("catalog loads", Label(s.name), "", "", err)}
	}
	var out []TableEntry
	for _, sc := range cat {
		if !sc.RunsOn(s.name) || (s.include != nil && !s.include(sc)) {
			continue
		}
		vs, _ := sc.Versions("")
		for _, v := range vs {
			out = append(out, Entry(sc.Name+" @"+v, append(Labels{s.name}, sc.Labels...), sc.Name, v, nil))
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
