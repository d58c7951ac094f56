package suites_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/goleak"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/fakeengine"
	"github.com/mooncake-faultlab/faultlab/faults/toxiproxy"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// fakeScale is the fake engine's TimeoutScale in suites: Mooncake's 30 s
// RPC timeouts take 600 ms. Wall-clock jitter is magnified by 1/fakeScale
// (docs/ENGINES.md, "fake"); 0.02 keeps the 10-minute blackholed-master
// hang well inside its `within` on a loaded 2-core machine.
const fakeScale = 0.02

// fakeEntries is one table entry per catalog scenario that runs on fake.
func fakeEntries() []TableEntry {
	cat, err := scenarios.Catalog()
	if err != nil {
		return []TableEntry{Entry("catalog loads", "", err)}
	}
	var out []TableEntry
	for _, sc := range cat {
		if sc.RunsOn(fakeengine.Name) {
			out = append(out, Entry(sc.Name, sc.Name, nil))
		}
	}
	return out
}

func runFake(ctx context.Context, sc *scenarios.Scenario, eng engine.Engine) []scenarios.Result {
	return scenarios.Run(ctx, sc, eng, scenarios.Options{Seed: 1, TimeoutScale: fakeScale})
}

var _ = Describe("catalog on the fake engine", Label("fake"), Ordered, func() {
	var (
		before  goleak.Option
		addrs   []string
		results = map[string][]scenarios.Result{} // by scenario, for the agreement spec
	)
	BeforeAll(func() { before = goleak.IgnoreCurrent() })

	DescribeTable("scenario", func(name string, loadErr error) {
		Expect(loadErr).NotTo(HaveOccurred())
		cat, err := scenarios.Catalog()
		Expect(err).NotTo(HaveOccurred())
		scs, err := scenarios.Resolve(cat, []string{name})
		Expect(err).NotTo(HaveOccurred())
		eng := &addrRecorder{Engine: fakeengine.New(fakeengine.Options{}), addrs: &addrs}
		rs := runFake(context.Background(), scs[0], eng)
		results[name] = rs
		for _, r := range rs {
			AddReportEntry(r.Scenario+"@"+r.MooncakeVersion, fmt.Sprintf("%s %.1fms %s", r.Verdict, r.WallMS, r.Reason))
			if r.Verdict == scenarios.Skip {
				continue // the reason is in the report entry; skips are the engine's honest answer
			}
			Expect(r.Verdict).To(Equal(scenarios.Pass), "%s @ %s: %s", r.Scenario, r.MooncakeVersion, r.Reason)
		}
	}, fakeEntries())

	It("agrees with sim on every scenario both run", Label("agreement"), func() {
		agreeWithSim(results, fakeengine.Name, func(sc *scenarios.Scenario) []scenarios.Result {
			return runFake(context.Background(), sc, fakeengine.New(fakeengine.Options{}))
		}, nil)
	})

	It("leaves no goroutine, listener or proxy behind", func() {
		Expect(goleak.Find(before, goleak.IgnoreTopFunction(toxiproxy.UpstreamLeak))).To(Succeed())
		for _, a := range addrs {
			here, err := listeningHere(a)
			Expect(err).NotTo(HaveOccurred())
			Expect(here).To(BeFalse(), "%s still listening", a)
		}
	})
})

// addrRecorder remembers every address a world listened on (servers,
// transfer endpoints, proxies), to check they are closed after.
type addrRecorder struct {
	engine.Engine
	addrs *[]string
}

func (e *addrRecorder) Launch(ctx context.Context, spec engine.WorldSpec) (engine.World, error) {
	w, err := e.Engine.Launch(ctx, spec)
	if err != nil {
		return nil, err
	}
	if fw, ok := w.(*fakeengine.World); ok {
		*e.addrs = append(*e.addrs, fw.Listeners()...)
	}
	return w, nil
}

var _ = Describe("fake engine interrupted", Label("fake"), func() {
	It("leaves nothing running when the run's context is cancelled mid-run (Ctrl-C)", func() {
		before := goleak.IgnoreCurrent()
		cat, err := scenarios.Catalog()
		Expect(err).NotTo(HaveOccurred())
		scs, err := scenarios.Resolve(cat, []string{"setup/master-blackholed"})
		Expect(err).NotTo(HaveOccurred())
		var addrs []string
		eng := &addrRecorder{Engine: fakeengine.New(fakeengine.Options{}), addrs: &addrs}
		ctx, cancel := context.WithCancel(context.Background())
		// 20 attempts × 30 s request timeout = 12 s at scale 0.02; cancel at 0.3 s.
		time.AfterFunc(300*time.Millisecond, cancel)
		start := time.Now()
		r := scenarios.RunVersion(ctx, scs[0], eng, mooncake.Latest, scenarios.Options{Seed: 1, TimeoutScale: fakeScale})
		Expect(time.Since(start)).To(BeNumerically("<", 5*time.Second))
		Expect(r.Verdict).NotTo(Equal(scenarios.Pass))
		Expect(addrs).NotTo(BeEmpty())
		for _, a := range addrs {
			here, err := listeningHere(a)
			Expect(err).NotTo(HaveOccurred())
			Expect(here).To(BeFalse(), "%s still listening", a)
		}
		Expect(goleak.Find(before, goleak.IgnoreTopFunction(toxiproxy.UpstreamLeak))).To(Succeed())
	})
})
