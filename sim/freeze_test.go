package sim_test

import (
	"fmt"
	"regexp"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/faults"
)

// A paused mooncake_client stops pinging: the master's lines about it, at
// the second (of the world's clock) they come, are real's for a SIGSTOP
// of 15 s and 40 s (docs/REAL-FINDINGS.md §65 and §72): 0.3.14's registry
// suspects it 10 s after its last ping, brings it back at its first ping
// after SIGCONT, or takes it offline 20 s after the suspicion; earlier
// releases expire it at client_ttl, and the NEED_REMOUNT its first ping
// then gets remounts it without a master line.
var _ = Describe("a paused mooncake_client", func() {
	DescribeTable("stops pinging until SIGCONT",
		func(version string, pause time.Duration, want []string) {
			e := launch(opts{version: version, client: true, faults: []faults.Fault{
				{At: 2 * time.Second, For: pause, Kind: faults.Process, Target: "client", Action: "pause"},
			}})
			a := setupArgs("localhost", "tcp", "")
			a.GlobalSegmentSize = 0 // the store pings; its lines are not under test
			Expect(e.setup(a)).To(Equal(0))
			Expect(e.w.Clock().Sleep(ctx, 2*time.Second+pause+5*time.Second)).To(Succeed())
			// operator<<(UUID): both halves in decimal.
			line := regexp.MustCompile(`^client_id=(\d+-\d+), (action=(client|unmount).*|segment_name=.*)$`)
			seg := regexp.MustCompile(`segment_name=127\.0\.0\.1:\d+`)
			store := realOf(e).ID().String()
			var got []string
			for _, ev := range e.tr.Events() {
				m := line.FindStringSubmatch(ev.Text)
				if ev.Kind != "log" || ev.Source != "master" || m == nil || m[1] == store {
					continue
				}
				got = append(got, fmt.Sprintf("%ds client_id=C, %s", ev.At/time.Second, seg.ReplaceAllString(m[2], "segment_name=S")))
			}
			Expect(got).To(Equal(want))
		},
		Entry("0.3.14, 15 s", "0.3.14", 15*time.Second, []string{
			"12s client_id=C, action=client_liveness_suspected",
			"17s client_id=C, action=client_liveness_recovered, signal=ping",
		}),
		Entry("0.3.14, 40 s", "0.3.14", 40*time.Second, []string{
			"12s client_id=C, action=client_liveness_suspected",
			"32s client_id=C, action=client_liveness_offline",
			"32s client_id=C, segment_name=S, action=unmount_offline_mem_segment",
			"32s client_id=C, action=client_offboarding_complete, retries=0, duration_ms=0",
		}),
		Entry("0.3.13.post1, 15 s", "0.3.13.post1", 15*time.Second, []string{
			"12s client_id=C, action=client_expired",
			"12s client_id=C, segment_name=S, action=unmount_expired_mem_segment",
		}),
		Entry("0.3.9, 15 s", "0.3.9", 15*time.Second, []string{
			"12s client_id=C, action=client_expired",
			"12s client_id=C, segment_name=S, action=unmount_expired_segment",
		}),
	)
})
