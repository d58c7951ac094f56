package sim_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/models/client"
)

// close() while the master is refused: from 0.3.10.post1 ~Client joins the
// task-poll thread before it stops the ping thread (client_service.cpp
// v0.3.12.post1:306-318), and the two threads tick together, so the ping
// thread begins one more iteration — here its third failed ping and the
// refused reconnect — before the destructor unmounts. Real 0.3.12.post1,
// seed 30530: close from 12.2 s, third ping failed 16.77 s, reconnect
// 21.07 s, unmount 26.57 s (docs/REAL-FINDINGS.md §28.18).
var _ = Describe("close() during a master outage", func() {
	// the third iteration ends at t0 + 6 s + 3 costs (two pings, the
	// reconnect) + 1 s; the unmount dials once more
	third := 6*time.Second + 4*client.RefusedPoolCost + client.PingInterval
	DescribeTable("runs the ping thread's next iteration first where ~Client joins the task-poll thread first",
		func(version string, closeAt, closedAt time.Duration, destructorLine string) {
			e := launch(opts{version: version, seed: 5, faults: []faults.Fault{refused(3500 * time.Millisecond)}})
			Expect(e.setup(setupArgs("127.0.0.1:17820", "tcp", ""))).To(Equal(0))
			t0 := e.now() // both threads start here and tick every second
			// At t0 + 4 s
			// each reads End of file on a closed connection; the ping of
			// t0 + 5 s dials the refused master (RefusedPoolCost) and sleeps 1 s.
			Expect(e.w.Clock().Sleep(ctx, t0+closeAt-e.now())).To(Succeed())
			Expect(e.store.Close(ctx)).To(Equal(0))
			Expect(e.now() - t0).To(Equal(closedAt))
			logs := e.logs("mooncake:tp0")
			Expect(logs).To(ContainElements("Failed to unmount segment from master: RPC_FAIL", destructorLine))
		},
		// closed asleep after the second failure: the third ping, its
		// reconnect, the sleep, then the unmount
		Entry("0.3.12.post1, asleep", "0.3.12.post1", 10*time.Second, third,
			"Failed to unmount segment in destructor: RPC_FAIL"),
		Entry("0.3.10.post1, asleep", "0.3.10.post1", 10*time.Second, third,
			"Failed to unmount segment: RPC_FAIL"),
		// closed during the third ping: the task-poll thread leaves during
		// the reconnect, so this iteration is the last (seed 2031)
		Entry("0.3.12.post1, in the third ping", "0.3.12.post1", 12*time.Second, third,
			"Failed to unmount segment in destructor: RPC_FAIL"),
		// closed asleep after the reconnect: the task-poll thread is in its
		// next FetchTasks, so the ping thread runs a fourth iteration
		Entry("0.3.12.post1, asleep after the reconnect", "0.3.12.post1", 19500*time.Millisecond, third+2*client.RefusedPoolCost+client.PingInterval,
			"Failed to unmount segment in destructor: RPC_FAIL"),
	)

	// A healthy master: closed asleep, the ping thread wakes with the
	// task-poll thread, pings and sleeps once more. Real 0.3.12.post1
	// (init, sleep 3.4 s, init): the close ended ≈ 1.5 s after it began,
	// at the ping thread's second tick.
	It("waits two ticks, not one, with a healthy master (0.3.12.post1)", func() {
		e := launch(opts{version: "0.3.12.post1", seed: 5})
		Expect(e.setup(setupArgs("127.0.0.1:17821", "tcp", ""))).To(Equal(0))
		t0 := e.now()
		Expect(e.w.Clock().Sleep(ctx, 3400*time.Millisecond)).To(Succeed())
		Expect(e.store.Close(ctx)).To(Equal(0))
		Expect(e.now() - t0).To(Equal(5 * time.Second))
	})
})
