package sim_test

import (
	"fmt"
	"github.com/mooncake-faultlab/faultlab/models/client"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/sim"
)

var _ = Describe("dummy client (standalone mode)", func() {
	It("returns -1 when mooncake_client is unreachable", func() {
		e := launch(opts{version: "0.3.13.post1"})
		Expect(e.store.SetupDummy(ctx, 64*MiB, 16*MiB, sim.ClientAddr)).To(Equal(-1))
		Expect(e.logs("mooncake:tp0")).To(Equal([]string{"Dummy Client not available", "Failed to connect to real client"}))
		Expect(e.now()).To(Equal(client.RefusedPoolCost))
	})

	It("returns -1 when mooncake_client is refused by a fault", func() {
		e := launch(opts{version: "0.3.13.post1", metadata: "http", client: true,
			faults: []faults.Fault{{Kind: faults.ClientDown, Mode: faults.ModeRefuse}}})
		Expect(e.store.SetupDummy(ctx, 64*MiB, 16*MiB, sim.ClientAddr)).To(Equal(-1))
	})

	It("does not exist before 0.3.8", func() {
		e := launch(opts{version: "0.3.7"})
		_, err := e.store.SetupDummy(ctx, 64*MiB, 16*MiB, sim.ClientAddr)
		pe, ok := engine.AsPyError(err)
		Expect(ok).To(BeTrue())
		Expect(pe.Class).To(Equal("AttributeError"))
	})

	Context("with mooncake_client running", func() {
		var e *env
		BeforeEach(func() {
			e = launch(opts{version: "0.3.13.post1", metadata: "http", client: true})
			Expect(e.store.SetupDummy(ctx, 64*MiB, 16*MiB, sim.ClientAddr)).To(Equal(0))
			Expect(e.logs("client")).To(ContainElement("Starting real client service on 127.0.0.1:50052"))
		})

		It("rejects memory that is not mooncake shm", func() {
			b, err := e.proc.Alloc(ctx, engine.AllocDefault, 4*MiB)
			Expect(err).NotTo(HaveOccurred())
			Expect(e.store.RegisterBuffer(ctx, b.Ptr, 4*MiB)).To(Equal(-1))
			Expect(e.logs("mooncake:tp0")).To(ContainElement("Buffer is not in any registered shared memory"))
		})

		It("rejects a slice of an shm segment", func() {
			b, err := e.proc.Alloc(ctx, engine.AllocMooncakeShm, 4*MiB)
			Expect(err).NotTo(HaveOccurred())
			Expect(e.store.RegisterBuffer(ctx, b.Ptr, 4*MiB)).To(Equal(0))
			Expect(e.store.RegisterBuffer(ctx, b.Ptr, 4*MiB)).To(Equal(0))
			Expect(e.store.RegisterBuffer(ctx, b.Ptr+4096, 4096)).To(Equal(-1))
			Expect(e.logs("mooncake:tp0")).To(ContainElement(fmt.Sprintf(
				"Invalid buffer address or size for registration: Buffer addr: %#x, need addr: %#x, buffer size: 4096, need size: 4194304", b.Ptr+4096, b.Ptr)))
		})

		It("moves data through the real client", func() {
			Expect(e.store.Put(ctx, "k", []byte("dummyval"))).To(Equal(0))
			Expect(e.store.Get(ctx, "k")).To(Equal([]byte("dummyval")))
			Expect(e.store.IsExist(ctx, "k")).To(Equal(1))
			Expect(e.store.BatchIsExist(ctx, []string{"k", "nope"})).To(Equal([]int{1, 0}))
			Expect(e.store.GetHostname(ctx)).To(Equal(""))
			// The ping thread pinged at once (before the put's exchange
			// completed): healthy, as real 0.3.10.post1 answered after I/O
			// (scenarios/regressions/divergence-health-check-seed-118.yaml).
			Expect(e.store.HealthCheck(ctx)).To(Equal(0))
		})
	})

	It("raises ImportError for MooncakeHostMemAllocator before 0.3.8", func() {
		e := launch(opts{version: "0.3.7.post1"})
		_, err := e.proc.Alloc(ctx, engine.AllocMooncakeShm, MiB)
		pe, ok := engine.AsPyError(err)
		Expect(ok).To(BeTrue())
		Expect(pe.Class).To(Equal("ImportError"))
		Expect(pe.Message).To(HavePrefix("cannot import name 'MooncakeHostMemAllocator' from 'mooncake.store' ("))
	})
})
