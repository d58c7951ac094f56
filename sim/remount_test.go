package sim_test

import (
	"context"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// MountSegment never adds a client to the master's ok_client_ (only
// ReMountSegment does, master_service.cpp), so the first ping after setup is
// answered NEED_REMOUNT and the ping thread's remount_segment runs on its
// own thread, holding mounted_segments_mutex_ through ReMountSegment and,
// from v0.3.12, its metadata re-publication. From v0.3.11 get takes that
// lock after its Query (GetLocalEndpoints). Real, seed 20261130032074 with a
// 2 s master latency and the metadata blackholed at 7.5 s: get 7.0 s at
// 0.3.13.post1, 2.0 s at 0.3.11.post1 (docs/REAL-FINDINGS.md §21).
var _ = Describe("the remount after the first ping", func() {
	ctx := context.Background()
	run := func(version string) (*env, time.Duration) {
		e := launch(opts{version: version, metadata: "master", faults: []faults.Fault{
			{At: 0, Kind: faults.Link, Target: "master", Mode: faults.ModeLatency, Stream: "downstream", Params: faults.LatencyParams{Latency: 2 * time.Second}},
			{At: 7500 * time.Millisecond, Kind: faults.MetadataDown, Mode: faults.ModeBlackhole},
		}})
		a := setupArgs("127.0.0.1:48513", "tcp", "")
		a.MetadataServer = sim.MetadataURL
		Expect(e.setup(a)).To(Equal(0))
		Expect(e.store.Put(ctx, "k", []byte("v"))).To(Equal(0))
		Expect(e.store.IsExist(ctx, "k")).To(Equal(1))
		start := e.now()
		Expect(e.store.Get(ctx, "k")).To(Equal([]byte("v")))
		return e, e.now() - start
	}

	It("re-mounts the segment the master already has: segment_already_exists twice", func() {
		e, _ := run("0.3.11.post1")
		// Its periodic metrics summary aside (models/master/summary.go).
		var lines []string
		for _, l := range e.logs("master") {
			if !strings.HasPrefix(l, "Master Admin Metrics: ") {
				lines = append(lines, l)
			}
		}
		Expect(lines).To(HaveLen(3))
		Expect(lines[0]).To(HaveSuffix(", action=mount_segment, segment_name=127.0.0.1:48513"))
		Expect(lines[1:]).To(Equal([]string{
			"segment_name=127.0.0.1:48513, warn=segment_already_exists",
			"segment_name=127.0.0.1:48513, warn=segment_already_exists"}))
	})

	DescribeTable("a get waits for the lock the remount holds",
		func(version string, want time.Duration, republished bool) {
			e, took := run(version)
			Expect(took).To(Equal(want))
			lines := e.logs("mooncake:tp0")
			if republished {
				Expect(lines).To(ContainElements(
					"Failed to re-publish segment descriptor to metadata server, rc=-200, will retry in next heartbeat cycle",
					"Failed to re-publish RPC meta entry to metadata server, rc=-200, will retry in next heartbeat cycle"))
			} else {
				Expect(lines).NotTo(ContainElement(ContainSubstring("re-publish")))
			}
		},
		// ReMountSegment 8–10 s; the get's Query ends at 14 s.
		Entry("0.3.11.post1: the remount is one master RPC, over before the get", "0.3.11.post1", 2*time.Second, false),
		// ReMountSegment, then three blackholed metadata calls (3 s each):
		// the lock is free at 19 s, the get's Query ended at 14 s.
		Entry("0.3.13.post1: the re-publication holds it 9 s more", "0.3.13.post1", 7*time.Second, true),
	)
})
