package sim_test

import (
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
)

// Reads slower than a 1 s lease (default_kv_lease_ttl 1000) behind 1 s of
// latency each way on the master link: Client::BatchQuery stamps every
// key with the one time point before BatchGetReplicaList, Client::BatchGet
// checks them all with one time point after the transfers, so every key
// of a batch fails (real 0.3.7.post2 … 0.3.14, REAL-FINDINGS §71,
// io/lease-expired-before-transfer-completed).
var _ = Describe("reads slower than their lease", func() {
	slow := faults.Fault{At: 0, Kind: faults.Link, Target: "master", Mode: faults.ModeLatency, Params: faults.LatencyParams{Latency: time.Second}}
	leaseLines := func(e *env) []string {
		var out []string
		for _, l := range e.logs("mooncake:tp0") {
			if strings.Contains(l, "lease_expired") || strings.Contains(l, "LEASE_EXPIRED") {
				out = append(out, l)
			}
		}
		return out
	}
	world := func(ttl string) (*env, engine.Buffer) {
		e := launch(opts{version: "0.3.9", seed: 5, flags: map[string]string{"default_kv_lease_ttl": ttl}})
		Expect(e.setup(setupArgs("127.0.0.1:17850", "tcp", ""))).To(Equal(0))
		b, err := e.proc.Alloc(ctx, engine.AllocDefault, 8*MiB)
		Expect(err).NotTo(HaveOccurred())
		Expect(e.store.RegisterBuffer(ctx, b.Ptr, 8*MiB)).To(Equal(0))
		Expect(e.store.BatchPutFrom(ctx, []string{"a", "b", "c"}, []uint64{b.Ptr, b.Ptr + 100, b.Ptr + 200}, []int64{10, 10, 10})).To(Equal([]int{0, 0, 0}))
		Expect(e.w.Arm(ctx, []faults.Fault{slow})).To(Succeed())
		return e, b
	}
	into := func(e *env, b engine.Buffer) ([]int, time.Duration) {
		start := e.now()
		rcs, err := e.store.BatchGetInto(ctx, []string{"a", "b", "c"}, []uint64{b.Ptr + uint64(MiB), b.Ptr + uint64(MiB) + 100, b.Ptr + uint64(MiB) + 200}, []int64{10, 10, 10})
		Expect(err).NotTo(HaveOccurred())
		return rcs, e.now() - start
	}

	It("fails every key of a batch, warnings first, then batch_get_into's lines", func() {
		e, b := world("1000")
		rcs, took := into(e, b)
		Expect(rcs).To(Equal([]int{-707, -707, -707}))
		Expect(took).To(Equal(2 * time.Second))
		Expect(leaseLines(e)).To(Equal([]string{
			"lease_expired_before_data_transfer_completed key=a",
			"lease_expired_before_data_transfer_completed key=b",
			"lease_expired_before_data_transfer_completed key=c",
			"BatchGet failed for key 'a': LEASE_EXPIRED",
			"BatchGet failed for key 'b': LEASE_EXPIRED",
			"BatchGet failed for key 'c': LEASE_EXPIRED",
		}))
	})

	It("fails get with get_buffer's line", func() {
		e, _ := world("1000")
		v, err := e.store.Get(ctx, "a")
		Expect(err).NotTo(HaveOccurred())
		Expect(v).To(Equal([]byte{}))
		Expect(leaseLines(e)).To(Equal([]string{
			"lease_expired_before_data_transfer_completed key=a",
			"Get failed for key: a with error: LEASE_EXPIRED",
		}))
	})

	It("reads every key with a lease longer than the read", func() {
		e, b := world("3000")
		rcs, took := into(e, b)
		Expect(rcs).To(Equal([]int{10, 10, 10}))
		Expect(took).To(Equal(2 * time.Second))
		Expect(leaseLines(e)).To(BeEmpty())
	})
})
