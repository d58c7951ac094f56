package sim_test

import (
	"context"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/models/client"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// The store etcd client's keepalive pings without a stream (0.3.12.x):
// etcd's GOAWAY too_many_pings 30 s after setup's master view read, once,
// only while the process lives (docs/REAL-FINDINGS.md §86).
var _ = Describe("store etcd keepalive without a stream", func() {
	ctx := context.Background()
	// noMaster: an HA client with no leader in etcd (setup -600).
	noMaster := func(version string) (*env, time.Duration) {
		e := launch(opts{version: version, metadata: "etcd", noMaster: true})
		a := setupArgs("127.0.0.1:17934", "tcp", "")
		a.MasterServerAddr = "etcd://" + sim.EtcdAddr
		Expect(e.setup(a)).To(Equal(-600))
		// The view read's time: its "key not found" line (the first one).
		read := time.Duration(-1)
		for _, ev := range e.tr.Events() {
			if ev.Kind == "log" && strings.HasSuffix(ev.Text, "error=key not found in etcd") && read < 0 {
				read = ev.At
			}
		}
		Expect(read).To(BeNumerically(">", 0))
		return e, read
	}
	// goAways are the times of the GOAWAY lines, at level ERROR.
	goAways := func(e *env) []time.Duration {
		var out []time.Duration
		for _, ev := range e.tr.Events() {
			if ev.Kind == "log" && ev.Source == "mooncake:tp0" && ev.Text == client.TooManyPingsLine {
				Expect(ev.Level).To(Equal("ERROR"))
				out = append(out, ev.At)
			}
		}
		return out
	}
	It("prints grpc-go's line 30 s after the failed setup at 0.3.12.post1, once", func() {
		e, read := noMaster("0.3.12.post1")
		Expect(e.w.Clock().Sleep(ctx, read+30*time.Second-time.Millisecond-e.now())).To(Succeed())
		Expect(goAways(e)).To(BeEmpty())
		Expect(e.w.Clock().Sleep(ctx, 80*time.Second)).To(Succeed())
		Expect(goAways(e)).To(Equal([]time.Duration{read + 30*time.Second}))
		Expect(client.TooManyPingsLine).To(Equal(`[transport] Client received GoAway with error code ENHANCE_YOUR_CALM and debug data equal to ASCII "too_many_pings".`))
	})
	It("prints it once per process, also after a second failed setup", func() {
		e, read := noMaster("0.3.12")
		s, err := e.proc.NewStore(ctx)
		Expect(err).NotTo(HaveOccurred())
		a := setupArgs("127.0.0.1:17935", "tcp", "")
		a.MasterServerAddr = "etcd://" + sim.EtcdAddr
		Expect(s.Setup(ctx, a)).To(Equal(-600))
		Expect(e.w.Clock().Sleep(ctx, 60*time.Second)).To(Succeed())
		Expect(goAways(e)).To(Equal([]time.Duration{read + 30*time.Second}))
	})
	It("prints nothing once the process is gone", func() {
		e, _ := noMaster("0.3.12.post1")
		Expect(e.w.Clock().Sleep(ctx, 10*time.Second)).To(Succeed())
		Expect(e.proc.Close(ctx)).To(Succeed())
		Expect(e.w.Clock().Sleep(ctx, 60*time.Second)).To(Succeed())
		Expect(goAways(e)).To(BeEmpty())
	})
	DescribeTable("prints nothing at releases that send no pings without a stream",
		func(version string) {
			e, _ := noMaster(version)
			Expect(e.w.Clock().Sleep(ctx, 60*time.Second)).To(Succeed())
			Expect(goAways(e)).To(BeEmpty())
		},
		Entry("0.3.11.post1: no keepalive", "0.3.11.post1"),
		Entry("0.3.13.post1: #3144", "0.3.13.post1"),
		Entry("0.3.14", "0.3.14"),
	)
	It("prints nothing for a client set up under a serving HA master", func() {
		e := launch(opts{version: "0.3.12.post1", metadata: "etcd", ha: true})
		a := setupArgs("127.0.0.1:17936", "tcp", "")
		a.MasterServerAddr = "etcd://" + sim.EtcdAddr
		Expect(e.setup(a)).To(Equal(0))
		Expect(e.w.Clock().Sleep(ctx, 80*time.Second)).To(Succeed())
		Expect(goAways(e)).To(BeEmpty())
		Expect(e.store.Put(ctx, "k", []byte("v"))).To(Equal(0))
	})
	It("prints nothing when etcd does not answer setup's read", func() {
		e := launch(opts{version: "0.3.12.post1", metadata: "etcd", noMaster: true,
			faults: []faults.Fault{{Kind: faults.MetadataDown, Mode: faults.ModeRefuse}}})
		a := setupArgs("127.0.0.1:17937", "tcp", "")
		a.MasterServerAddr = "etcd://" + sim.EtcdAddr
		Expect(e.setup(a)).To(Equal(-600))
		Expect(e.w.Clock().Sleep(ctx, 60*time.Second)).To(Succeed())
		Expect(goAways(e)).To(BeEmpty())
	})
})
