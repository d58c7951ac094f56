package suites_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/realengine"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// slowWall: scenarios labelled slow-wall (the 10-minute blackholed master)
// run on real only when FAULTLAB_SLOW is set (nightly); every other catalog
// scenario runs on real in `make test`.
var slowWall = os.Getenv("FAULTLAB_SLOW") != ""

func realEntries() []TableEntry {
	cat, err := scenarios.Catalog()
	if err != nil {
		return []TableEntry{Entry("catalog loads", "", err)}
	}
	var out []TableEntry
	for _, sc := range cat {
		if sc.RunsOn(realengine.Name) && (slowWall || !sc.HasLabel("slow-wall")) {
			out = append(out, Entry(sc.Name, sc.Name, nil))
		}
	}
	return out
}

var _ = Describe("catalog on the real engine", Label("real"), Ordered, func() {
	eng := realengine.New(realengine.Options{})
	results := map[string][]scenarios.Result{}

	BeforeAll(func(ctx SpecContext) {
		// Nothing installed (no PyPI): the whole container skips with the
		// engine's own reason, e.g. "Mooncake 0.3.13.post1 not installed ...;
		// run `make real-engine`".
		if err := eng.Available(ctx, mooncake.Latest); err != nil {
			Skip(err.Error())
		}
	})

	DescribeTable("scenario", func(ctx SpecContext, name string, loadErr error) {
		Expect(loadErr).NotTo(HaveOccurred())
		rs := scenarios.Run(ctx, catalogScenario(name), eng, scenarios.Options{Seed: 1})
		results[name] = rs
		for _, r := range rs {
			AddReportEntry(r.Scenario+"@"+r.MooncakeVersion, fmt.Sprintf("%s wall=%.0fms %s", r.Verdict, r.WallMS, r.Reason))
			if r.Verdict == scenarios.Skip {
				continue // a version not installed, or RDMA hardware: the reason is in the report
			}
			Expect(r.Verdict).To(Equal(scenarios.Pass), "%s @ %s: %s", r.Scenario, r.MooncakeVersion, r.Reason)
		}
	}, realEntries())

	It("agrees with sim on return codes, exception class and text, process deaths, and time in each Mooncake method", Label("agreement"), func(ctx SpecContext) {
		agreeWithSim(results, realengine.Name, nil, func(sc *scenarios.Scenario, v string) scenarios.Result {
			return scenarios.RunVersion(ctx, sc, eng, v, scenarios.Options{Seed: 1})
		})
	})

	It("leaves no Mooncake process behind", func() {
		Expect(mooncakeProcesses()).To(BeEmpty())
	})
})

// mooncakeProcesses lists running processes that the real engine starts:
// mooncake_master, mooncake_client, mooncake_http_metadata_server, the
// Python driver and etcd (topology metadata: etcd).
func mooncakeProcesses() []string {
	var out []string
	pids, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range pids {
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 {
			continue // exited meanwhile, or a kernel thread
		}
		cmd := strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " ")
		for _, name := range []string{"mooncake_master", "mooncake_client", "mooncake_http_metadata_server", "driver.py", "--initial-cluster=faultlab="} {
			if strings.Contains(cmd, name) {
				out = append(out, filepath.Base(filepath.Dir(p))+": "+cmd)
				break
			}
		}
	}
	return out
}
