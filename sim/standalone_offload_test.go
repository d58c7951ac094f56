package sim_test

import (
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// standalone/ssd-offload-read-stalls-client's world, in one process: a
// key mooncake_client offloaded, evicted from memory, read by a dummy.
var _ = Describe("mooncake_client's SSD offload read (Mooncake#1711)", func() {
	world := func(version string) (*env, engine.Buffer, time.Duration) {
		e := launch(opts{version: version, client: true,
			flags:       map[string]string{"enable_offload": "true", "eviction_high_watermark_ratio": "0.1", "eviction_ratio": "1.0", "default_kv_lease_ttl": "1000"},
			clientFlags: map[string]string{"enable_offload": "true"},
			clientEnv: map[string]string{"MOONCAKE_OFFLOAD_FILE_STORAGE_PATH": "{{offload_dir}}",
				"MOONCAKE_OFFLOAD_BUCKET_KEYS_LIMIT": "1", "MOONCAKE_OFFLOAD_HEARTBEAT_INTERVAL_SECONDS": "1"}})
		Expect(e.store.SetupDummy(ctx, 64*MiB, 16*MiB, sim.ClientAddr)).To(Equal(0))
		b, err := e.proc.Alloc(ctx, engine.AllocMooncakeShm, 16*MiB)
		Expect(err).NotTo(HaveOccurred())
		Expect(e.store.RegisterBuffer(ctx, b.Ptr, 16*MiB)).To(Equal(0))
		Expect(e.store.BatchPutFrom(ctx, []string{"k0"}, []uint64{b.Ptr}, []int64{4096})).To(Equal([]int{0}))
		Expect(e.w.Clock().Sleep(ctx, 3*time.Second)).To(Succeed())
		// 8 MiB of the 64 MiB segment: over the watermark, k0 (on disk) evicted.
		Expect(e.store.BatchPutFrom(ctx, []string{"k1"}, []uint64{b.Ptr + 4096}, []int64{8 * MiB})).To(Equal([]int{0}))
		Expect(e.w.Clock().Sleep(ctx, time.Second)).To(Succeed())
		return e, b, e.now()
	}
	// at is when the client's first line containing s was printed.
	at := func(e *env, s string) time.Duration {
		for _, ev := range e.tr.Events() {
			if ev.Kind == "log" && ev.Source == "client" && strings.Contains(ev.Text, s) {
				return ev.At
			}
		}
		Fail("no client line " + s)
		return 0
	}

	It("holds the read 30 s on its own port and expires the dummy up to 0.3.10.post2", func() {
		e, b, start := world("0.3.10.post1")
		Expect(e.store.BatchGetInto(ctx, []string{"k0"}, []uint64{b.Ptr + 9*uint64(MiB)}, []int64{4096})).To(Equal([]int{-900}))
		Expect(e.now() - start).To(Equal(30 * time.Second))
		// The last ping the IO thread served came at most a second before
		// the read; the monitor's first beat 10 s after it expires the dummy.
		exp := at(e, "action=client_expired") - start
		Expect(exp > 9*time.Second && exp <= 11*time.Second).To(BeTrue(), "expired %s into the read", exp)
		Expect(e.store.BatchGetInto(ctx, []string{"k0"}, []uint64{b.Ptr + 9*uint64(MiB)}, []int64{4096})).To(Equal([]int{-600}))
		var tail []string
		for _, l := range e.logs("client") {
			if strings.Contains(l, "RPC call") || strings.Contains(l, "RPC_FAIL") || strings.Contains(l, "Time taken") || strings.Contains(l, "shm_not_mapped") || strings.Contains(l, "client_expired") {
				tail = append(tail, l)
			}
		}
		Expect(tail).To(Equal([]string{
			"client_id=tp0#1/1, action=client_expired",
			"RPC call failed: Connection timed out",
			"Failed to invoke batch_get_offload_object, client_addr = 127.0.0.1:50052, error is: RPC_FAIL",
			"Batch get offload object failed with error: RPC_FAIL",
			"Batch get store object failed with error: RPC_FAIL",
			"Time taken for batch_get_into: 30000000us, read store: 30000000us, with memory key count: 0, offload key count: 1",
			"client_id=tp0#1/1, error=shm_not_mapped",
		}))
		Expect(e.logs("mooncake:tp0")).To(ContainElement("Batch RPC call failed: Connection timed out"))
		// The handler's lines follow the dummy's (both at 30 s).
		Expect(at(e, "Batch get store object failed")).To(Equal(start + 30*time.Second))
	})

	It("reads the key back from SSD from 0.3.11", func() {
		e, b, start := world("0.3.11.post1")
		Expect(e.store.BatchGetInto(ctx, []string{"k0"}, []uint64{b.Ptr + 9*uint64(MiB)}, []int64{4096})).To(Equal([]int{4096}))
		Expect(e.now() - start).To(BeNumerically("<", time.Second))
		Expect(e.w.Clock().Sleep(ctx, 15*time.Second)).To(Succeed())
		Expect(e.logs("client")).NotTo(ContainElement(ContainSubstring("client_expired")))
		Expect(e.logs("client")).To(ContainElement("Time taken for batch_get_into: 0us, read store: 0us, with memory key count: 0, offload key count: 1"))
	})

	It("expires a dummy 10 s after its last ping at every release with dummies", func() {
		e := launch(opts{version: "0.3.13.post1", client: true})
		Expect(e.store.SetupDummy(ctx, 64*MiB, 16*MiB, sim.ClientAddr)).To(Equal(0))
		Expect(e.store.Close(ctx)).To(Equal(0))
		closed := e.now()
		Expect(e.w.Clock().Sleep(ctx, 15*time.Second)).To(Succeed())
		exp := at(e, "action=client_expired") - closed
		Expect(exp > 10*time.Second && exp <= 11*time.Second).To(BeTrue(), "expired %s after close", exp)
		Expect(e.logs("client")).To(ContainElement("client_id=tp0#1/1, action=client_expired"))
	})
})
