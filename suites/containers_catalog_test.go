package suites_test

import (
	"context"
	"os"
	"runtime"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/containers"
	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/realengine"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// The real catalog again, every party in its own container: the same
// verdicts, codes and messages as in processes (agreement with sim, which
// the process catalog also meets), the container scenarios too, and nothing
// labelled faultlab.world left. Without Docker the suite skips with one line
// saying what is missing.
var _ = catalogSuite(engineSuite{
	name:       realengine.Name,
	title:      " in containers",
	labels:     []string{"containers"},
	containers: true,
	nightly:    containerActionsOnly,
	newEngine:  func() engine.Engine { return realengine.New(realengine.Options{Containers: true}) },
	opts:       scenarios.Options{Seed: 1},
	// Slow-wall scenarios only with FAULTLAB_SLOW=1, as on real; one world
	// per core (containers cost more CPU to start than processes).
	parallel: runtime.GOMAXPROCS(0),
	available: func(ctx context.Context) error {
		if err := containers.Available(ctx); err != nil {
			return err
		}
		return realengine.New(realengine.Options{}).Available(ctx, realengine.LatestImageReady())
	},
	// As on real, plus etcd metadata (realengine.ContainersNoEtcd: no etcd
	// image yet) and several nodes named on the loopback.
	maySkip: func(sc *scenarios.Scenario, version string) bool {
		return noToxic(sc) || sc.HasLabel(realengine.NeedsRDMAHardware) || sc.HasLabel(scenarios.LabelNeedsGPU) || !realengine.ImageReady(version) || sc.Topology.Metadata == "etcd" || realengine.NeedsLibraryFix(version) ||
			len(sc.Topology.Nodes) > 1 || // a loopback local_hostname across containers (World.loopbackAcrossContainers)
			loopbackIPv6Only(sc)
	},
	agree: true,
	after: func() { Expect(leftoversOfThisProcess(context.Background())).To(BeEmpty()) },
})

var _ = Describe("real engine in containers interrupted", Label("containers", "real"), func() {
	It("removes the world's containers and network when the run's context is cancelled (Ctrl-C)", func(ctx SpecContext) {
		if err := containers.Available(ctx); err != nil {
			Skip(err.Error())
		}
		eng := realengine.New(realengine.Options{Containers: true})
		v := realengine.LatestImageReady()
		if err := eng.Available(ctx, v); err != nil {
			Skip(err.Error())
		}
		run, cancel := context.WithCancel(ctx)
		// The refused master costs ≈ 90 s of retries; cancel after 8 s, mid-setup.
		time.AfterFunc(8*time.Second, cancel)
		start := time.Now()
		r := scenarios.RunVersion(run, catalogScenario("setup/master-down-refused"), eng, v, scenarios.Options{Seed: 1})
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
