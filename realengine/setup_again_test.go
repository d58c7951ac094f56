package realengine_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/sim"
	"github.com/mooncake-faultlab/faultlab/trace"
)

// setupTwice calls setup() on an initialised store, then put/get, and
// returns the codes and the two hostnames.
func setupTwice(ctx context.Context, s engine.Store, master string) ([]int, [2]string) {
	var codes []int
	var hosts [2]string
	for i := range 2 {
		rc, err := s.Setup(ctx, setupArgs("localhost", "P2PHANDSHAKE", master))
		Expect(err).NotTo(HaveOccurred())
		codes = append(codes, rc)
		hosts[i], err = s.GetHostname(ctx)
		Expect(err).NotTo(HaveOccurred())
	}
	rc, err := s.Put(ctx, "k", []byte("v"))
	Expect(err).NotTo(HaveOccurred())
	codes = append(codes, rc)
	got, err := s.Get(ctx, "k")
	Expect(err).NotTo(HaveOccurred())
	Expect(got).To(Equal([]byte("v")))
	return codes, hosts
}

// No Mooncake version guards setup() against an initialised client
// ("Client is already initialized" belongs to initAll): setup_internal
// builds a new Client on a new port. Real and sim must agree.
var _ = Describe("setup() on an initialised client", func() {
	for _, v := range []string{vOld, vNew} {
		It("returns 0 again on a new port, real and sim alike, on "+v, func() {
			w := launch(v, nil)
			ctx := timeout(60 * time.Second)
			_, s := w.store(nil)
			master, _ := w.Addr("master")
			realCodes, realHosts := setupTwice(ctx, s, master)
			Expect(realCodes).To(Equal([]int{0, 0, 0}))
			Expect(realHosts[1]).NotTo(Equal(realHosts[0]))

			sw, err := sim.New().Launch(ctx, engine.WorldSpec{Version: v, Trace: trace.New(nil), Master: &engine.MasterSpec{},
				Metadata: "P2PHANDSHAKE", Nodes: []engine.NodeSpec{{Name: "tp0"}}})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func() { Expect(sw.Close(context.Background())).To(Succeed()) })
			p, err := sw.StartProcess(ctx, "tp0", nil)
			Expect(err).NotTo(HaveOccurred())
			ss, err := p.NewStore(ctx)
			Expect(err).NotTo(HaveOccurred())
			simMaster, _ := sw.Addr("master")
			simCodes, simHosts := setupTwice(ctx, ss, simMaster)
			Expect(simCodes).To(Equal(realCodes))
			Expect(simHosts[1]).NotTo(Equal(simHosts[0]))
		})
	}
})
