package suites_test

import (
	"context"
	"fmt"
	"net"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/goleak"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/fakeengine"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// fakeScale is the fake engine's TimeoutScale in suites: Mooncake's 30 s
// RPC timeouts take 300 ms (docs/ENGINES.md, "fake").
const fakeScale = 0.01

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

var _ = Describe("catalog on the fake engine", Label("fake"), Ordered, func() {
	var (
		before goleak.Option
		addrs  []string
	)
	BeforeAll(func() { before = goleak.IgnoreCurrent() })

	DescribeTable("scenario", func(name string, loadErr error) {
		Expect(loadErr).NotTo(HaveOccurred())
		cat, err := scenarios.Catalog()
		Expect(err).NotTo(HaveOccurred())
		scs, err := scenarios.Resolve(cat, []string{name})
		Expect(err).NotTo(HaveOccurred())
		eng := &addrRecorder{Engine: fakeengine.New(fakeengine.Options{}), addrs: &addrs}
		for _, r := range scenarios.Run(context.Background(), scs[0], eng, scenarios.Options{Seed: 1, TimeoutScale: fakeScale}) {
			AddReportEntry(r.Scenario+"@"+r.MooncakeVersion, fmt.Sprintf("%s %.1fms %s", r.Verdict, r.WallMS, r.Reason))
			if r.Verdict == scenarios.Skip {
				continue // the reason is in the report entry; skips are the engine's honest answer
			}
			Expect(r.Verdict).To(Equal(scenarios.Pass), "%s @ %s: %s", r.Scenario, r.MooncakeVersion, r.Reason)
		}
	}, fakeEntries())

	It("leaves no goroutine, listener or proxy behind", func() {
		Expect(goleak.Find(before)).To(Succeed())
		Expect(addrs).NotTo(BeEmpty())
		for _, a := range addrs {
			c, err := net.DialTimeout("tcp", a, time.Second)
			if err == nil {
				_ = c.Close()
			}
			Expect(err).To(HaveOccurred(), "%s still listening", a)
		}
	})
})

// addrRecorder remembers every address a world handed out (servers and,
// through them, the proxies' upstreams), to check they are closed after.
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
		// 20 attempts × 30 s connect timeout = 6 s at scale 0.01; cancel at 0.3 s.
		time.AfterFunc(300*time.Millisecond, cancel)
		start := time.Now()
		r := scenarios.RunVersion(ctx, scs[0], eng, mooncake.Latest, scenarios.Options{Seed: 1, TimeoutScale: fakeScale})
		Expect(time.Since(start)).To(BeNumerically("<", 2*time.Second))
		Expect(r.Verdict).NotTo(Equal(scenarios.Pass))
		Expect(addrs).NotTo(BeEmpty())
		for _, a := range addrs {
			_, err := net.DialTimeout("tcp", a, time.Second)
			Expect(err).To(HaveOccurred(), "%s still listening", a)
		}
		Expect(goleak.Find(before)).To(Succeed())
	})
})
