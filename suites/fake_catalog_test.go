package suites_test

import (
	"context"
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
// RPC timeouts take 3 s, curl's 3 s 300 ms. Wall-clock jitter is
// magnified by 1/fakeScale (docs/ENGINES.md, "fake"): at 0.02 (curl's 3 s
// in 60 ms) the standalone worlds' mooncake_client missed its metadata
// PUT in 3 of 6 runs of their catalog with the machine loaded 5× over its
// 2 cores (and once in a fresh .ci/run); at 0.05, 0 of 12 at 5× and 6×,
// but run 35 (docs/MEASUREMENTS.md) saw the master expire a pinging client
// at 0.05: its 10 s client_ttl is 0.5 s of wall time, and the harness
// process, starved beside the SGLang agreement, handled a put before the
// ping due before it. At 0.1 a stall must last 1 s; the fake specs run in
// lane 2, which ends minutes before lane 1.
const fakeScale = 0.1

// The fake engine serves every capability the catalog needs: nothing may
// skip but a link mode toxiproxy has no toxic for. Afterwards no goroutine, listener or proxy may remain.
var _ = func() bool {
	var (
		before goleak.Option
		addrs  []string
	)
	return catalogSuite(engineSuite{
		name:      fakeengine.Name,
		newEngine: func() engine.Engine { return fakeengine.New(fakeengine.Options{}) },
		opts:      scenarios.Options{Seed: 1, TimeoutScale: fakeScale},
		wrap:      func(e engine.Engine) engine.Engine { return &addrRecorder{Engine: e, addrs: &addrs} },
		agree:     true,
		maySkip:   func(sc *scenarios.Scenario, _ string) bool { return noToxic(sc) },
		beforeAll: func() { before = goleak.IgnoreCurrent() },
		after: func() {
			Expect(goleak.Find(before, goleak.IgnoreTopFunction(toxiproxy.UpstreamLeak))).To(Succeed())
			Expect(addrs).NotTo(BeEmpty())
			Expect(ourListeners(addrs)).To(BeEmpty(), "still listening")
		},
	})
}()

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
		Expect(ourListeners(addrs)).To(BeEmpty(), "still listening")
		Expect(goleak.Find(before, goleak.IgnoreTopFunction(toxiproxy.UpstreamLeak))).To(Succeed())
	})
})
