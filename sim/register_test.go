package sim_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/engine"
)

const MiB = int64(1) << 20

var _ = Describe("register_buffer()", func() {
	rdmaNode := func(dev engine.RDMADevice, memlock int64) engine.NodeSpec {
		return engine.NodeSpec{Name: "tp0", RDMA: []engine.RDMADevice{dev}, MemlockBytes: memlock}
	}
	ready := func(o opts) *env {
		e := launch(o)
		a := setupArgs("localhost", "tcp", "")
		if len(o.node.RDMA) > 0 {
			a = setupArgs("localhost", "rdma", o.node.RDMA[0].Name)
		}
		a.GlobalSegmentSize, a.LocalBufferSize = 16*MiB, 0
		Expect(e.setup(a)).To(Equal(0))
		return e
	}
	alloc := func(e *env, size int64) engine.Buffer {
		b, err := e.proc.Alloc(ctx, engine.AllocDefault, size)
		Expect(err).NotTo(HaveOccurred())
		return b
	}

	It("returns -600 before setup", func() {
		e := launch(opts{version: "0.3.13.post1"})
		Expect(e.store.RegisterBuffer(ctx, 0x1000, 4096)).To(Equal(-600))
		Expect(e.logs("mooncake:tp0")).To(Equal([]string{"Client is not initialized"}))
	})

	It("follows the real tcp client: ok, overlap, same region, len 0, nullptr, unregister twice", func() {
		e := ready(opts{version: "0.3.13.post1"})
		b := alloc(e, 8*MiB)
		Expect(e.store.RegisterBuffer(ctx, b.Ptr, 4*MiB)).To(Equal(0))
		Expect(e.store.RegisterBuffer(ctx, b.Ptr+uint64(MiB), MiB)).To(Equal(-600))
		Expect(e.store.RegisterBuffer(ctx, b.Ptr, 4*MiB)).To(Equal(-600))
		Expect(e.store.RegisterBuffer(ctx, b.Ptr+uint64(6*MiB), 0)).To(Equal(-600))
		Expect(e.store.RegisterBuffer(ctx, 0, 4096)).To(Equal(-600))
		Expect(e.store.UnregisterBuffer(ctx, b.Ptr)).To(Equal(0))
		Expect(e.store.UnregisterBuffer(ctx, b.Ptr)).To(Equal(-600))
		logs := e.logs("mooncake:tp0")
		Expect(logs[len(logs)-5:]).To(Equal([]string{
			"Transfer Engine does not support overlapped memory region",
			"Transfer Engine does not support overlapped memory region",
			"length is 0",
			"addr is nullptr",
			"Unregister buffer failed with error: INVALID_PARAMS",
		}))
	})

	// CheckRegisterMemoryParams and the TE's zero-length check came with
	// v0.3.6: before, tcp records anything and ibv_reg_mr refuses.
	DescribeTable("null and zero-length buffers up to 0.3.5",
		func(nic bool, zeroLen, nullPtr int, logs []string) {
			o := opts{version: "0.3.5"}
			if nic {
				o.node = rdmaNode(engine.RDMADevice{Name: "mlx5_0"}, 0)
			}
			e := ready(o)
			b := alloc(e, MiB)
			Expect(e.store.RegisterBuffer(ctx, b.Ptr, 0)).To(Equal(zeroLen))
			Expect(e.store.RegisterBuffer(ctx, 0, 4096)).To(Equal(nullPtr))
			Expect(e.logs("mooncake:tp0")).NotTo(ContainElements("length is 0", "addr is nullptr"))
			Expect(e.logs("mooncake:tp0")).To(ContainElements(logs))
		},
		Entry("tcp accepts both", false, 0, 0, []string{}),
		Entry("rdma: ibv_reg_mr refuses both", true, -600, -600, []string{"Failed to register memory 0x0: Bad address [14]"}),
	)

	It("fails ibv_reg_mr past the NIC's MR count", func() {
		e := ready(opts{version: "0.3.13.post1", node: rdmaNode(engine.RDMADevice{Name: "mlx5_0", MaxMR: 3}, 0)})
		// The 16 MiB segment already holds one MR.
		b := alloc(e, 8*MiB)
		Expect(e.store.RegisterBuffer(ctx, b.Ptr, MiB)).To(Equal(0))
		Expect(e.store.RegisterBuffer(ctx, b.Ptr+uint64(2*MiB), MiB)).To(Equal(0))
		Expect(e.store.RegisterBuffer(ctx, b.Ptr+uint64(4*MiB), MiB)).To(Equal(-600))
		Expect(e.logs("mooncake:tp0")).To(ContainElements(
			fmt.Sprintf("Failed to register memory %#x: Resource temporarily unavailable [11]", b.Ptr+uint64(4*MiB)),
			"Failed to register memory region (chunk 0) with context 0"))
	})

	It("fails ibv_reg_mr past RLIMIT_MEMLOCK", func() {
		e := ready(opts{version: "0.3.13.post1", node: rdmaNode(engine.RDMADevice{Name: "mlx5_0"}, 32*MiB)})
		b := alloc(e, 32*MiB)
		Expect(e.store.RegisterBuffer(ctx, b.Ptr, 8*MiB)).To(Equal(0))
		Expect(e.store.RegisterBuffer(ctx, b.Ptr+uint64(8*MiB), 16*MiB)).To(Equal(-600))
		Expect(e.logs("mooncake:tp0")).To(ContainElement(fmt.Sprintf("Failed to register memory %#x: Cannot allocate memory [12]", b.Ptr+uint64(8*MiB))))
	})

	DescribeTable("a buffer above the device max_mr_size",
		func(version string, want int, log string) {
			e := ready(opts{version: version, node: rdmaNode(engine.RDMADevice{Name: "mlx5_0", MaxMRSize: 16 * MiB}, 0)})
			b := alloc(e, 64*MiB)
			Expect(e.store.RegisterBuffer(ctx, b.Ptr, 64*MiB)).To(Equal(want))
			if log != "" {
				Expect(e.logs("mooncake:tp0")).To(ContainElement(log))
			}
		},
		Entry("0.3.12.post1 rejects with -600", "0.3.12.post1", -600, "length 67108864 is larger than max_mr_size: 16777216"),
		Entry("0.3.8 rejects with -600", "0.3.8", -600, "length 67108864 is larger than max_mr_size: 16777216"),
		Entry("0.3.6 rejects with -600 (#695)", "0.3.6", -600, "length 67108864 is larger than max_mr_size: 16777216"),
		Entry("0.3.5 shrinks silently", "0.3.5", 0, "The buffer length exceeds device max_mr_size, shrink it to 16777216: Success [0]"),
	)

	It("chunks a buffer above max_mr_size from 0.3.13", func() {
		e := ready(opts{version: "0.3.13.post1", node: rdmaNode(engine.RDMADevice{Name: "mlx5_0", MaxMRSize: 16 * MiB}, 0)})
		b := alloc(e, 64*MiB)
		Expect(e.store.RegisterBuffer(ctx, b.Ptr, 64*MiB)).To(Equal(0))
		// 1 MR for the 16 MiB segment + 4 chunks.
		Expect(realOf(e).Engine().MRCount("mlx5_0")).To(Equal(5))
	})
})
