package suites_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/realengine"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// realEntries: every catalog scenario that runs on real, except slow-wall
// ones unless FAULTLAB_SLOW is set (scenarios.SlowSkip: the rule `faultlab
// run` applies too).
func realEntries() []TableEntry {
	names, err := realNames()
	if err != nil {
		return []TableEntry{Entry("catalog loads", "", err)}
	}
	var out []TableEntry
	for _, n := range names {
		out = append(out, Entry(n, n, nil))
	}
	return out
}

func realNames() ([]string, error) {
	cat, err := scenarios.Catalog()
	if err != nil {
		return nil, err
	}
	eng := realengine.New(realengine.Options{})
	var out []string
	for _, sc := range cat {
		if _, slow := scenarios.SlowSkip(sc, eng, scenarios.Options{}); sc.RunsOn(realengine.Name) && !slow {
			out = append(out, sc.Name)
		}
	}
	return out, nil
}

// selected applies the suite's focus and skip regexps to a real-catalog
// entry as Ginkgo will (on the spec's full text), so the parallel pre-run
// runs only the entries that will be asserted.
func selected(name string) bool {
	sc, _ := GinkgoConfiguration()
	text := "catalog on the real engine scenario " + name
	for _, s := range sc.SkipStrings {
		if regexp.MustCompile(s).MatchString(text) {
			return false
		}
	}
	if len(sc.FocusStrings) == 0 {
		return true
	}
	for _, f := range sc.FocusStrings {
		if regexp.MustCompile(f).MatchString(text) {
			return true
		}
	}
	return false
}

var _ = Describe("catalog on the real engine", Label("real"), Ordered, func() {
	eng := realengine.New(realengine.Options{})
	results := map[string][]scenarios.Result{}
	prerun := map[string][]scenarios.Result{}

	BeforeAll(func(ctx SpecContext) {
		// Nothing installed (no PyPI): the whole container skips with the
		// engine's own reason, e.g. "Mooncake 0.3.13.post1 not installed ...;
		// run `make real-engine`".
		if err := eng.Available(ctx, mooncake.Latest); err != nil {
			Skip(err.Error())
		}
		// The real catalog mostly waits out Mooncake's timeouts: run the
		// selected scenarios as parallel worlds (each its own ports, temp
		// dir, processes; as `faultlab run -j`), then assert per entry.
		names, err := realNames()
		Expect(err).NotTo(HaveOccurred())
		var scs []*scenarios.Scenario
		for _, name := range names {
			if selected(name) {
				scs = append(scs, catalogScenario(name))
			}
		}
		opts := scenarios.Options{Seed: 1}
		jobs := scenarios.Jobs(scs, []engine.Engine{eng}, opts)
		// Two worlds per core, not the CLI's three: the suite asserts wall
		// durations (the 0.3.9 crash within 45 s), so it keeps CPU headroom.
		workers := map[string]int{eng.Name(): 2 * runtime.GOMAXPROCS(0)}
		for _, r := range scenarios.RunParallel(ctx, jobs, opts, scenarios.ParallelOptions{Jobs: workers}) {
			prerun[r.Scenario] = append(prerun[r.Scenario], r)
		}
	})

	DescribeTable("scenario", func(ctx SpecContext, name string, loadErr error) {
		Expect(loadErr).NotTo(HaveOccurred())
		rs, ok := prerun[name]
		if !ok {
			rs = scenarios.Run(ctx, catalogScenario(name), eng, scenarios.Options{Seed: 1})
		}
		results[name] = rs
		for _, r := range rs {
			AddReportEntry(r.Scenario+"@"+r.MooncakeVersion, fmt.Sprintf("%s wall=%.0fms %s", r.Verdict, r.WallMS, r.Reason))
			if r.Verdict == scenarios.Skip {
				continue // a version not installed, or RDMA hardware: the reason is in the report
			}
			Expect(r.Verdict).To(Equal(scenarios.Pass), "%s @ %s: %s", r.Scenario, r.MooncakeVersion, r.Reason)
		}
	}, realEntries())

	It("agrees with sim on return codes, exception class and text, and process deaths", Label("agreement"), func() {
		agreeWithSim(results, realengine.Name, nil)
	})

	It("leaves no Mooncake process behind", func() {
		Expect(mooncakeProcesses()).To(BeEmpty())
	})
})

// mooncakeProcesses lists running processes that the real engine starts:
// mooncake_master, mooncake_client, mooncake_http_metadata_server and the
// Python driver.
func mooncakeProcesses() []string {
	var out []string
	pids, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range pids {
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 {
			continue // exited meanwhile, or a kernel thread
		}
		cmd := strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " ")
		for _, name := range []string{"mooncake_master", "mooncake_client", "mooncake_http_metadata_server", "driver.py"} {
			if strings.Contains(cmd, name) {
				out = append(out, filepath.Base(filepath.Dir(p))+": "+cmd)
				break
			}
		}
	}
	return out
}
