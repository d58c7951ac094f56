package suites_test

import (
	"context"
	"fmt"
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/containers"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/realengine"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// The real catalog again, every party in its own container: the same
// verdicts, codes and messages as in processes (agreement with sim, which
// the process catalog also meets), and nothing labelled faultlab.world left.
var _ = Describe("catalog on the real engine in containers", Label("containers", "real"), Ordered, func() {
	eng := realengine.New(realengine.Options{Containers: true})
	results := map[string][]scenarios.Result{}

	BeforeAll(func(ctx SpecContext) {
		if err := containers.Available(ctx); err != nil {
			Skip(err.Error())
		}
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
				continue
			}
			Expect(r.Verdict).To(Equal(scenarios.Pass), "%s @ %s: %s", r.Scenario, r.MooncakeVersion, r.Reason)
		}
	}, realEntries())

	It("agrees with sim on return codes, exception class and text, and process deaths", Label("agreement"), func() {
		agreeWithSim(results, realengine.Name, nil)
	})

	It("leaves no container or network behind", func(ctx SpecContext) {
		Expect(leftoversOfThisProcess(ctx)).To(BeEmpty())
	})
})

var _ = Describe("real engine in containers interrupted", Label("containers", "real"), func() {
	It("removes the world's containers and network when the run's context is cancelled (Ctrl-C)", func(ctx SpecContext) {
		if err := containers.Available(ctx); err != nil {
			Skip(err.Error())
		}
		eng := realengine.New(realengine.Options{Containers: true})
		if err := eng.Available(ctx, mooncake.Latest); err != nil {
			Skip(err.Error())
		}
		run, cancel := context.WithCancel(ctx)
		// The refused master costs ≈ 90 s of retries; cancel after 8 s, mid-setup.
		time.AfterFunc(8*time.Second, cancel)
		start := time.Now()
		r := scenarios.RunVersion(run, catalogScenario("setup/master-down-refused"), eng, mooncake.Latest, scenarios.Options{Seed: 1})
		Expect(time.Since(start)).To(BeNumerically("<", 40*time.Second))
		Expect(r.Verdict).NotTo(Equal(scenarios.Pass))
		Expect(leftoversOfThisProcess(ctx)).To(BeEmpty())
	}, SpecTimeout(3*time.Minute))
})

func leftoversOfThisProcess(ctx context.Context) []string {
	d, err := containers.Docker(ctx)
	Expect(err).NotTo(HaveOccurred())
	defer d.Close()
	left, err := containers.LeftoversOf(ctx, d, os.Getpid())
	Expect(err).NotTo(HaveOccurred())
	return left
}
