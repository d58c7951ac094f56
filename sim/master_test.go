package sim_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/sim"
)

var _ = Describe("master and data path", func() {
	It("puts, gets and keeps the first value of a key", func() {
		e := launch(opts{version: "0.3.13.post1"})
		Expect(e.setup(setupArgs("localhost", "tcp", ""))).To(Equal(0))
		Expect(e.store.Put(ctx, "k1", []byte("hello"))).To(Equal(0))
		Expect(e.store.Put(ctx, "k1", []byte("hello2"))).To(Equal(0))
		Expect(e.store.Get(ctx, "k1")).To(Equal([]byte("hello")))
		Expect(e.store.Get(ctx, "nokey")).To(Equal([]byte{}))
		Expect(e.store.IsExist(ctx, "k1")).To(Equal(1))
		Expect(e.store.IsExist(ctx, "nokey")).To(Equal(0))
		b, err := e.proc.Alloc(ctx, engine.AllocDefault, 8*MiB)
		Expect(err).NotTo(HaveOccurred())
		Expect(e.proc.(*sim.Process).Memory().Write(b.Ptr, []byte("0123456789"))).To(Succeed())
		Expect(e.store.RegisterBuffer(ctx, b.Ptr, 8*MiB)).To(Equal(0))
		Expect(e.store.BatchPutFrom(ctx, []string{"b1", "b2"}, []uint64{b.Ptr, b.Ptr + 100}, []int64{10, 50})).To(Equal([]int{0, 0}))
		Expect(e.store.BatchIsExist(ctx, []string{"b1", "b2", "b3"})).To(Equal([]int{1, 1, 0}))
		Expect(e.store.BatchGetInto(ctx, []string{"b1", "b3"}, []uint64{b.Ptr + uint64(2*MiB), b.Ptr + uint64(3*MiB)}, []int64{100, 100})).To(Equal([]int{10, -704}))
		got, err := e.proc.(*sim.Process).Memory().Read(b.Ptr+uint64(2*MiB), 10)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(got)).To(Equal("0123456789"))
		Expect(e.store.Close(ctx)).To(Equal(0))
		Expect(e.store.HealthCheck(ctx)).To(Equal(1))
	})

	It("runs out of space with NO_AVAILABLE_HANDLE and evicts on the next tick", func() {
		e := launch(opts{version: "0.3.13.post1"})
		a := setupArgs("localhost", "tcp", "")
		a.GlobalSegmentSize = 16 * MiB // one slab: the smallest segment Mooncake allocates
		Expect(e.setup(a)).To(Equal(0))
		val := make([]byte, 4*MiB)
		for i := range 4 {
			Expect(e.store.Put(ctx, string(rune('a'+i)), val)).To(Equal(0))
		}
		Expect(e.store.Put(ctx, "e", val)).To(Equal(-200))
		Expect(e.logs("mooncake:tp0")).To(ContainElement("Failed to start put operation for key=e due to insufficient space. Consider lowering eviction_high_watermark_ratio or mounting more segments."))
		// Leases (10 s from PutEnd? no: from ExistKey/Get) are not held; the
		// eviction thread runs within 10 ms.
		Expect(e.w.Clock().Sleep(ctx, 20*time.Millisecond)).To(Succeed())
		Expect(e.store.Put(ctx, "e", val)).To(Equal(0))
	})

	It("remounts after a master restart and reports health 2 while it is down", func() {
		e := launch(opts{version: "0.3.13.post1", faults: []faults.Fault{
			{At: 5 * time.Second, For: 10 * time.Second, Kind: faults.Process, Target: "master", Action: "stop"},
		}})
		Expect(e.setup(setupArgs("localhost", "tcp", ""))).To(Equal(0))
		Expect(e.store.Put(ctx, "k", []byte("v"))).To(Equal(0))
		Expect(e.w.Clock().Sleep(ctx, 10*time.Second)).To(Succeed())
		Expect(e.store.HealthCheck(ctx)).To(Equal(2))
		Expect(e.logs("mooncake:tp0")).To(ContainElement("Failed to ping master"))
		Expect(e.w.Clock().Sleep(ctx, 20*time.Second)).To(Succeed())
		Expect(e.store.HealthCheck(ctx)).To(Equal(0))
		Expect(e.w.Master().SegmentNames()).To(HaveLen(1))
		// The restarted master lost every object.
		Expect(e.store.IsExist(ctx, "k")).To(Equal(0))
		Expect(e.store.Put(ctx, "k", []byte("v2"))).To(Equal(0))
		Expect(e.store.Get(ctx, "k")).To(Equal([]byte("v2")))
	})

	It("refuses Remove while a lease is held", func() {
		e := launch(opts{version: "0.3.13.post1"})
		Expect(e.setup(setupArgs("localhost", "tcp", ""))).To(Equal(0))
		Expect(e.store.Put(ctx, "k", []byte("v"))).To(Equal(0))
		Expect(e.store.IsExist(ctx, "k")).To(Equal(1))
		m := e.w.Master()
		Expect(m.Remove(ctx, "k")).To(MatchError("OBJECT_HAS_LEASE(-706)"))
		Expect(e.w.Clock().Sleep(ctx, 10*time.Second)).To(Succeed())
		Expect(m.Remove(ctx, "k")).To(Succeed())
	})

	It("expires a client that stops pinging after client_ttl", func() {
		e := launch(opts{version: "0.3.13.post1", faults: []faults.Fault{
			{At: time.Second, Kind: faults.MasterDown, Mode: faults.ModeBlackhole},
		}})
		Expect(e.setup(setupArgs("localhost", "tcp", ""))).To(Equal(0))
		Expect(e.w.Master().SegmentNames()).To(HaveLen(1))
		Expect(e.w.Clock().Sleep(ctx, 15*time.Second)).To(Succeed())
		Expect(e.w.Master().SegmentNames()).To(BeEmpty())
		Expect(e.logs("master")).To(ContainElement(MatchRegexp(`^client_id=\d+-\d+, action=client_expired$`)))
		// Then each of its segments (v0.3.11+: the _mem_ segment's words).
		Expect(e.logs("master")).To(ContainElement(MatchRegexp(`^client_id=\d+-\d+, segment_name=localhost:\d+, action=unmount_expired_mem_segment$`)))
	})
})
