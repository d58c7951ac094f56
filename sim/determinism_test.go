package sim_test

import (
	"runtime"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/faults"
)

// scenario runs a fixed mix: refused master that heals, puts, a restart.
func scenario(seed uint64) (string, time.Duration) {
	e := launch(opts{version: "0.3.13.post1", seed: seed, faults: []faults.Fault{
		{At: 0, For: 30 * time.Second, Kind: faults.MasterDown, Mode: faults.ModeRefuse},
		{At: 60 * time.Second, Kind: faults.Process, Target: "master", Action: "restart"},
		{At: 70 * time.Second, For: 5 * time.Second, Kind: faults.Link, Target: "master", Mode: faults.ModeLatency, Params: faults.LatencyParams{Latency: 20 * time.Millisecond, Jitter: 10 * time.Millisecond}},
	}})
	rc, err := e.setup(setupArgs("localhost", "tcp", ""))
	Expect(err).NotTo(HaveOccurred())
	Expect(rc).To(Equal(0))
	for _, k := range []string{"a", "b", "c"} {
		Expect(e.store.Put(ctx, k, []byte(k))).To(Equal(0))
	}
	Expect(e.w.Clock().Sleep(ctx, 45*time.Second)).To(Succeed())
	Expect(e.store.Put(ctx, "d", []byte("d"))).To(Equal(0))
	return e.tr.Hash(), e.now()
}

var _ = Describe("determinism", func() {
	It("gives the same trace hash for the same seed at any GOMAXPROCS", func() {
		h1, t1 := scenario(11)
		prev := runtime.GOMAXPROCS(1)
		h2, t2 := scenario(11)
		runtime.GOMAXPROCS(prev)
		Expect(h1).To(Equal(h2))
		Expect(t1).To(Equal(t2))
		Expect(h1).To(HavePrefix("sha256:"))
	})

	It("gives another trace for another seed (ports are drawn from the seed)", func() {
		h1, _ := scenario(11)
		h2, _ := scenario(12)
		Expect(h1).NotTo(Equal(h2))
	})
})
