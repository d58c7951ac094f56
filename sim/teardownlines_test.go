package sim_test

import (
	"regexp"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// filterLines keeps the lines of want's texts, in their order: a spec's
// exact sequence among the RPC pool's and the ping thread's lines.
func filterLines(lines []string, keep func(string) bool) []string {
	var out []string
	for _, l := range lines {
		if keep(l) {
			out = append(out, l)
		}
	}
	return out
}

func hasPrefix(prefixes ...string) func(string) bool {
	return func(l string) bool {
		for _, p := range prefixes {
			if len(l) >= len(p) && l[:len(p)] == p {
				return true
			}
		}
		return false
	}
}

// A read whose Query the refused master fails: get_buffer's ERROR, get's
// from v0.3.6 (it reads through get_buffer), batch_get_into's per key
// from v0.3.5 (real 0.3.9, 0.3.13.post1: io/get-while-master-down).
var _ = Describe("a read while the master is down", func() {
	DescribeTable("logs the binding's Query failure",
		func(version string, want []string) {
			e := launch(opts{version: version, seed: 3, faults: []faults.Fault{refused(5 * time.Second)}})
			Expect(e.setup(setupArgs("localhost", "tcp", ""))).To(Equal(0))
			Expect(e.store.Put(ctx, "k0", []byte("v"))).To(Equal(0))
			b, err := e.proc.Alloc(ctx, engine.AllocDefault, MiB)
			Expect(err).NotTo(HaveOccurred())
			Expect(e.store.RegisterBuffer(ctx, b.Ptr, MiB)).To(Equal(0))
			Expect(e.w.Clock().Sleep(ctx, 6*time.Second-e.now())).To(Succeed())
			Expect(e.store.GetBuffer(ctx, "k0")).To(Equal(0))
			Expect(e.store.Get(ctx, "k0")).To(Equal([]byte{}))
			Expect(e.store.BatchGetInto(ctx, []string{"k0", "k1"}, []uint64{b.Ptr, b.Ptr + 4096}, []int64{4096, 4096})).To(Equal([]int{-900, -900}))
			Expect(filterLines(e.logs("mooncake:tp0"), hasPrefix("Query failed"))).To(Equal(want))
		},
		Entry("0.3.9", "0.3.9", []string{
			"Query failed for key: k0 with error: RPC_FAIL",
			"Query failed for key: k0 with error: RPC_FAIL",
			"Query failed for key 'k0': RPC_FAIL",
			"Query failed for key 'k1': RPC_FAIL",
		}),
		Entry("0.3.13.post1", "0.3.13.post1", []string{
			"Query failed for key: k0 with error: RPC_FAIL",
			"Query failed for key: k0 with error: RPC_FAIL",
			"Query failed for key 'k0': RPC_FAIL",
			"Query failed for key 'k1': RPC_FAIL",
		}),
		// get() queries and returns b"" silently before v0.3.6
		// (store_py.cpp v0.3.5 get).
		Entry("0.3.5", "0.3.5", []string{
			"Query failed for key: k0 with error: RPC_FAIL",
			"Query failed for key 'k0': RPC_FAIL",
			"Query failed for key 'k1': RPC_FAIL",
		}),
	)

	It("logs nothing for a miss", func() {
		e := launch(opts{version: "0.3.9", seed: 3})
		Expect(e.setup(setupArgs("localhost", "tcp", ""))).To(Equal(0))
		Expect(e.store.GetBuffer(ctx, "nokey")).To(Equal(0))
		Expect(e.store.Get(ctx, "nokey")).To(Equal([]byte{}))
		Expect(filterLines(e.logs("mooncake:tp0"), hasPrefix("Query failed"))).To(BeEmpty())
	})
})

// close() with the HTTP metadata server refused: each unregistration
// rewrites the segment descriptor and fails (ERR_METADATA, -200); the
// local buffer's from v0.3.9 (tearDownAll_internal), the global
// segment's after the master's UnmountSegment at every release.
var _ = Describe("close() while the metadata server is down", func() {
	DescribeTable("logs each failed unregistration",
		func(version string, want []string) {
			down := faults.Fault{At: 5 * time.Second, Kind: faults.MetadataDown, Mode: faults.ModeRefuse}
			e := launch(opts{version: version, seed: 3, metadata: "http", faults: []faults.Fault{down}})
			a := setupArgs("localhost", "tcp", "")
			url, err := e.w.Addr("metadata")
			Expect(err).NotTo(HaveOccurred())
			a.MetadataServer = url
			Expect(e.setup(a)).To(Equal(0))
			Expect(e.w.Clock().Sleep(ctx, 6*time.Second-e.now())).To(Succeed())
			Expect(e.store.Close(ctx)).To(Equal(0))
			got := filterLines(e.logs("mooncake:tp0"), hasPrefix("Failed to unregister", "Failed to unmount", "Failed to register segment descriptor"))
			for i, l := range got {
				got[i] = segmentPort.ReplaceAllString(l, "localhost:PORT")
			}
			Expect(got).To(Equal(want))
		},
		Entry("0.3.9", "0.3.9", []string{
			"Failed to register segment descriptor, name localhost:PORT protocol tcp",
			"Failed to unregister client local buffer on tear down: INVALID_PARAMS",
			"Failed to register segment descriptor, name localhost:PORT protocol tcp",
			"Failed to unregister transfer buffer with transfer engine ret is -200",
			"Failed to unmount segment: INTERNAL_ERROR",
			"Failed to unregister segment descriptor, name localhost:PORT",
		}),
		Entry("0.3.13.post1", "0.3.13.post1", []string{
			"Failed to register segment descriptor, name localhost:PORT protocol tcp",
			"Failed to unregister client local buffer on tear down: INVALID_PARAMS",
			"Failed to register segment descriptor, name localhost:PORT protocol tcp",
			"Failed to unregister transfer buffer with transfer engine ret is -200",
			"Failed to unmount segment in destructor: INTERNAL_ERROR",
			"Failed to unregister segment descriptor, name localhost:PORT",
		}),
		// Before v0.3.9 the binding's teardown does not unregister the
		// local buffer.
		Entry("0.3.8.post1", "0.3.8.post1", []string{
			"Failed to register segment descriptor, name localhost:PORT protocol tcp",
			"Failed to unregister transfer buffer with transfer engine ret is -200",
			"Failed to unmount segment: INTERNAL_ERROR",
			"Failed to unregister segment descriptor, name localhost:PORT",
		}),
	)
})

// An unmount of a segment the master no longer holds: the master warns
// and answers OK (segment.cpp PrepareUnmountSegment, master_service.cpp
// UnmountSegment: idempotent). Before v0.3.6.post1 a non-HA client does
// not ping, so it never remounts after a restart.
var _ = Describe("close() after the master restarted", func() {
	DescribeTable("is an unmount the master does not hold before the client remounts",
		func(version string, exist int, warned bool) {
			restart := faults.Fault{At: 3 * time.Second, Kind: faults.Process, Target: "master", Action: "restart"}
			e := launch(opts{version: version, seed: 3, faults: []faults.Fault{restart}})
			Expect(e.setup(setupArgs("localhost", "tcp", ""))).To(Equal(0))
			Expect(e.w.Clock().Sleep(ctx, 10*time.Second)).To(Succeed())
			// Without pings the first call after the restart reads End of
			// file on the pooled connection to the old master (RPC_FAIL);
			// the next dials the new one.
			Expect(e.store.IsExist(ctx, "k0")).To(Equal(exist))
			Expect(e.store.Close(ctx)).To(Equal(0))
			client := filterLines(e.logs("mooncake:tp0"), hasPrefix("Failed to unmount"))
			Expect(client).To(BeEmpty())
			master := filterLines(e.logs("master"), func(l string) bool { return segmentNotFound.MatchString(l) })
			if warned {
				Expect(master).To(HaveLen(1))
			} else {
				Expect(master).To(BeEmpty())
			}
		},
		Entry("0.3.5: no ping, no remount", "0.3.5", -900, true),
		Entry("0.3.9: remounted at the first ping", "0.3.9", 0, false),
	)
})

var segmentPort = regexp.MustCompile(`localhost:\d+`)

var segmentNotFound = regexp.MustCompile(`^segment_id=\d+-\d+, warn=segment_not_found$`)

// The HA ping thread's third failure rereads the master view; the line
// was reworded in v0.3.6.post1 (client.cpp v0.3.6:1384 vs v0.3.6.post1:1421;
// real 0.3.4, 0.3.4.post2 vs 0.3.7.post2: etcd/ha-leader-stopped-integration).
var _ = Describe("an HA client whose leader is stopped", func() {
	DescribeTable("logs the third failed ping in its release's words",
		func(version, want string) {
			kill := faults.Fault{At: 10500 * time.Millisecond, Kind: faults.Process, Target: faults.TargetMasterLeader, Action: "stop"}
			e := launch(opts{version: version, metadata: "etcd", ha: true, faults: []faults.Fault{kill}})
			a := setupArgs("127.0.0.1:17802", "tcp", "")
			a.MasterServerAddr = "etcd://" + sim.EtcdAddr
			Expect(e.setup(a)).To(Equal(0))
			Expect(e.w.Clock().Sleep(ctx, 40*time.Second-e.now())).To(Succeed())
			Expect(filterLines(e.logs("mooncake:tp0"), hasPrefix("Failed to ping master for"))).To(Equal([]string{want}))
		},
		Entry("0.3.4", "0.3.4", "Failed to ping master for 3 times, try to get latest master view and reconnect"),
		Entry("0.3.6", "0.3.6", "Failed to ping master for 3 times, try to get latest master view and reconnect"),
		Entry("0.3.6.post1", "0.3.6.post1", "Failed to ping master for 3 times; fetching latest master view and reconnecting"),
		Entry("0.3.9", "0.3.9", "Failed to ping master for 3 times; fetching latest master view and reconnecting"),
	)
})
