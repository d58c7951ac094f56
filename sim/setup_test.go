package sim_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/models/client"
	"github.com/mooncake-faultlab/faultlab/sim"
)

var ctx = context.Background()

var _ = Describe("setup()", func() {
	It("succeeds with a healthy master over tcp", func() {
		e := launch(opts{version: "0.3.13.post1", seed: 1})
		Expect(e.setup(setupArgs("localhost", "tcp", ""))).To(Equal(0))
		h, err := e.store.GetHostname(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(h).To(MatchRegexp(`^localhost:1[234]\d\d\d$`))
		Expect(e.w.Master().SegmentNames()).To(Equal([]string{h}))
	})

	DescribeTable("master refused",
		func(version, hostname string, want int, attempts int, virtual time.Duration) {
			e := launch(opts{version: version, seed: 7, faults: []faults.Fault{refused(0)}})
			rc, err := e.setup(setupArgs(hostname, "tcp", ""))
			Expect(err).NotTo(HaveOccurred())
			Expect(rc).To(Equal(want))
			n := 0
			for _, l := range e.logs("mooncake:tp0") {
				// ≤ 0.3.5: one direct connect (MasterConnectDirect).
				if l == "Client not available" || l == "Failed to connect to master: not connected" {
					n++
				}
			}
			Expect(n).To(Equal(attempts))
			Expect(e.now()).To(Equal(virtual))
		},
		Entry("0.3.13.post1 port-less: 20 attempts → -1", "0.3.13.post1", "localhost", -1, 20, 20*(client.CreateCost+client.RefusedPoolCost+100*time.Millisecond)),
		Entry("0.3.13.post1 explicit port: one attempt → -600", "0.3.13.post1", "127.0.0.1:17777", -600, 1, client.CreateCost+client.RefusedPoolCost),
		Entry("0.3.8.post1 port-less: one attempt → -600", "0.3.8.post1", "localhost", -600, 1, client.CreateCost+client.RefusedPoolCost),
		Entry("0.3.5 port-less: one attempt, refused at once → -600", "0.3.5", "localhost", -600, 1, client.CreateCost),
		Entry("0.3.4 → +1, refused at once (real 0.3.4)", "0.3.4", "localhost", 1, 1, client.CreateCost),
		Entry("0.3.9 explicit port → -600", "0.3.9", "127.0.0.1:17777", -600, 1, client.CreateCost+client.RefusedPoolCost),
	)

	It("logs the retry texts of the auto-port loop", func() {
		e := launch(opts{version: "0.3.13.post1", seed: 3, faults: []faults.Fault{refused(0)}})
		Expect(e.setup(setupArgs("localhost", "tcp", ""))).To(Equal(-1))
		logs := e.logs("mooncake:tp0")
		Expect(logs).To(HaveLen(41))
		for i := 0; i < 20; i++ {
			Expect(logs[2*i]).To(Equal("Client not available"))
			Expect(logs[2*i+1]).To(MatchRegexp(fmt.Sprintf(`^Failed to create client on port 1[234]\d\d\d, retry %d/20$`, i+1)))
		}
		Expect(logs[40]).To(Equal("Failed to create client after 20 retries"))
	})

	It("0.3.9 dies in attempt 8 when the master refuses (real wheel)", func() {
		e := launch(opts{version: "0.3.9", seed: 3, faults: []faults.Fault{refused(0)}})
		_, err := e.setup(setupArgs("localhost", "tcp", ""))
		d, ok := engine.AsProcessDied(err)
		Expect(ok).To(BeTrue())
		Expect(d.Signal).To(Equal("SIGSEGV"))
		Expect(e.now()).To(Equal(8*(client.CreateCost+client.RefusedPoolCost) + 7*100*time.Millisecond))
		_, err = e.store.Put(ctx, "k", []byte("v"))
		Expect(err).To(Equal(d))
	})

	It("0.3.9 with 3 retries returns -1", func() {
		e := launch(opts{version: "0.3.9", seed: 3, faults: []faults.Fault{refused(0)}, procEnv: map[string]string{"MC_STORE_CLIENT_SETUP_RETRIES": "3"}})
		Expect(e.setup(setupArgs("localhost", "tcp", ""))).To(Equal(-1))
		Expect(e.logs("mooncake:tp0")).To(ContainElement("Failed to create client after 3 retries"))
	})

	Describe("blackholed master", func() {
		It("waits 20 × 30 s request timeouts + 20 × 100 ms on 0.3.13.post1", func() {
			e := launch(opts{version: "0.3.13.post1", seed: 5, faults: []faults.Fault{blackholed(0)}})
			Expect(e.setup(setupArgs("localhost", "tcp", ""))).To(Equal(-1))
			Expect(e.now()).To(Equal(20*(client.CreateCost+30*time.Second) + 20*100*time.Millisecond))
			Expect(e.logs("mooncake:tp0")[0]).To(Equal("RPC call timed out: Connection timed out"))
		})
		It("honours MC_RPC_TIMEOUT_MS from 0.3.12", func() {
			env := map[string]string{"MC_RPC_TIMEOUT_MS": "2000", "MC_RPC_CONNECT_TIMEOUT_MS": "1000"}
			e := launch(opts{version: "0.3.13.post1", faults: []faults.Fault{blackholed(0)}, procEnv: env})
			Expect(e.setup(setupArgs("127.0.0.1:17790", "tcp", ""))).To(Equal(-600))
			Expect(e.now()).To(Equal(client.CreateCost + 2*time.Second))
		})
		It("ignores MC_RPC_TIMEOUT_MS on 0.3.9", func() {
			env := map[string]string{"MC_RPC_TIMEOUT_MS": "2000", "MC_RPC_CONNECT_TIMEOUT_MS": "1000"}
			e := launch(opts{version: "0.3.9", faults: []faults.Fault{blackholed(0)}, procEnv: env})
			Expect(e.setup(setupArgs("127.0.0.1:17790", "tcp", ""))).To(Equal(-600))
			Expect(e.now()).To(Equal(client.CreateCost + 30*time.Second))
			// yalantinglibs' easylog line first (real 0.3.9, docs/REAL-FINDINGS.md §1).
			Expect(e.logs("mooncake:tp0")).To(Equal([]string{"Master view key: mooncake-store/mooncake/master_view", "read rpc head failed, error msg:Operation aborted.. close the socket.value=125", "RPC call failed: Connection timed out", "Failed to create client"}))
		})
	})

	It("reports a version mismatch from 0.3.8", func() {
		e := launch(opts{version: "0.3.13.post1", flags: map[string]string{"rpc_version": "1.0.0"}})
		Expect(e.setup(setupArgs("127.0.0.1:17000", "tcp", ""))).To(Equal(-600))
		Expect(e.logs("mooncake:tp0")).To(ContainElement("Version mismatch: server=1.0.0 client=2.0.0"))
	})

	Describe("RDMA without a NIC", func() {
		It("fails with named devices", func() {
			e := launch(opts{version: "0.3.13.post1"})
			Expect(e.setup(setupArgs("127.0.0.1:17778", "rdma", "mlx5_0"))).To(Equal(-600))
			port := listenPort(e.logs("mooncake:tp0"))
			Expect(port).To(BeNumerically(">=", 15000))
			Expect(port).To(BeNumerically("<=", 17000))
			Expect(e.logs("mooncake:tp0")).To(Equal([]string{
				"Storage root directory is not set. persisting data is disabled.",
				"Metrics reporting is disabled (set MC_TE_METRIC=1 to enable)",
				"Transfer Engine parseHostNameWithPort. server_name: 127.0.0.1 port: 17778",
				fmt.Sprintf("Transfer Engine RPC using P2P handshake, listening on 127.0.0.1:%d", port),
				"Transfer engine auto discovery is disabled for protocol: rdma",
				"Using specified RDMA devices: mlx5_0",
				"No RDMA devices found, check your device installation",
				"Topology discovery complete with specified devices. Found 0 HCAs",
				"RdmaTransport: No available RNIC",
				"RdmaTransport: cannot initialize RDMA resources",
				fmt.Sprintf("removeSegmentDesc 127.0.0.1:%d not found, already removed maybe", port),
				"Failed to install RDMA transport with specified devices",
				"Failed to initialize transfer engine",
				"Failed to create client",
			}))
		})
		It("takes about a second per failed attempt (thread joins), like the real wheel", func() {
			e := launch(opts{version: "0.3.13.post1", seed: 2})
			Expect(e.setup(setupArgs("localhost", "rdma", "mlx5_0"))).To(Equal(-1))
			// Real 0.3.13.post1: 23.2 s for 20 attempts.
			Expect(e.now()).To(Equal(20 * (client.CreateCost + time.Second + 100*time.Millisecond)))
		})
		// The ping thread starts at connect before 0.3.10.post1 and at the
		// first MountSegment from then on (EnsureStorageControlPlaneStarted):
		// a transfer-engine failure joins it (1 s) only before. Real
		// 0.3.10.post1, HTTP metadata, MC_FORCE_HCA=1: 63 ms (explore seed 2005).
		DescribeTable("a transfer-engine failure joins the ping thread only where it started at connect",
			func(version string, want time.Duration) {
				e := launch(opts{version: version, metadata: "http", procEnv: map[string]string{"MC_FORCE_HCA": "1"}})
				a := setupArgs("127.0.0.1:17778", "rdma", "")
				a.MetadataServer = sim.MetadataURL
				Expect(e.setup(a)).To(Equal(-600))
				Expect(e.now()).To(Equal(want))
			},
			Entry("0.3.10 (ping thread from connect)", "0.3.10", client.CreateCost+time.Second+time.Millisecond),
			Entry("0.3.10.post1 (ping thread from mount)", "0.3.10.post1", client.CreateCost),
		)
		// P2P metadata, rdma with two named devices and no RNIC: destroying the
		// failed engine joins the handshake listener (1 s poll) only where
		// MultiTransport frees the failed transport (0.3.12+); before, the
		// leaked transport keeps the metadata and its listener alive. Where
		// the ping thread started at connect (< 0.3.10.post1) its join is
		// the second. Real (REAL-FINDINGS §21): 1004/1024/1025 ms at
		// 0.3.7.post2/0.3.8.post1/0.3.9, 27/26 ms at 0.3.10.post1/0.3.11.post1,
		// 1067/1035 ms at 0.3.12.post1/0.3.13.post1.
		DescribeTable("a failed RDMA install with P2P metadata joins the handshake listener only where the transport is freed",
			func(version string, want time.Duration, removeLog bool) {
				e := launch(opts{version: version})
				a := setupArgs("127.0.0.1:44479", "rdma", "mlx5_0,mlx5_1")
				Expect(e.setup(a)).To(Equal(-600))
				Expect(e.now()).To(Equal(want))
				line := fmt.Sprintf("removeSegmentDesc 127.0.0.1:%d not found, already removed maybe", listenPort(e.logs("mooncake:tp0")))
				if removeLog {
					Expect(e.logs("mooncake:tp0")).To(ContainElement(line))
				} else {
					Expect(e.logs("mooncake:tp0")).NotTo(ContainElement(line))
				}
			},
			Entry("0.3.9 (ping thread from connect)", "0.3.9", client.CreateCost+time.Second+time.Millisecond, false),
			Entry("0.3.10.post1 (transport leaked)", "0.3.10.post1", client.CreateCost, false),
			Entry("0.3.11.post1 (transport leaked)", "0.3.11.post1", client.CreateCost, false),
			Entry("0.3.12 (transport freed)", "0.3.12", client.CreateCost+time.Second, true),
			Entry("0.3.13.post1 (transport freed)", "0.3.13.post1", client.CreateCost+time.Second, true),
		)
		It("falls back to TCP with an empty device list", func() {
			e := launch(opts{version: "0.3.9"})
			Expect(e.setup(setupArgs("localhost", "rdma", ""))).To(Equal(0))
			Expect(e.logs("mooncake:tp0")).To(ContainElements(
				"Set auto discovery ON by default for RDMA protocol, since no device names provided",
				"Topology discovery complete. Found 0 HCAs."))
			Expect(e.store.(*sim.Store).Real().Engine().Transports()).To(Equal([]string{"tcp"}))
		})
		It("fails with MC_FORCE_HCA=1", func() {
			e := launch(opts{version: "0.3.13.post1", procEnv: map[string]string{"MC_FORCE_HCA": "1"}})
			Expect(e.setup(setupArgs("localhost", "rdma", ""))).To(Equal(-1))
			Expect(e.logs("mooncake:tp0")).To(ContainElements("Failed to install transport, type=rdma", "Failed to initialize transfer engine, rc=-1"))
		})
		It("aborts the process on 0.3.5", func() {
			e := launch(opts{version: "0.3.5"})
			_, err := e.setup(setupArgs("localhost", "rdma", "mlx5_0"))
			d, ok := engine.AsProcessDied(err)
			Expect(ok).To(BeTrue())
			Expect(d.Signal).To(Equal("SIGABRT"))
			Expect(d.Reason).To(Equal("Check failed: transport Failed to install transport"))
		})
		It("uses RDMA when a NIC exists", func() {
			e := launch(opts{version: "0.3.13.post1", node: engine.NodeSpec{Name: "tp0", RDMA: []engine.RDMADevice{{Name: "mlx5_0"}}}})
			Expect(e.setup(setupArgs("localhost", "rdma", "mlx5_0"))).To(Equal(0))
			Expect(e.store.(*sim.Store).Real().Engine().Transports()).To(Equal([]string{"rdma"}))
		})
	})

	Describe("HTTP metadata", func() {
		It("fails to set the location when nothing listens", func() {
			e := launch(opts{version: "0.3.13.post1", metadata: "http"})
			a := setupArgs("127.0.0.1:17779", "tcp", "")
			a.MetadataServer = "http://127.0.0.1:17002/metadata"
			Expect(e.setup(a)).To(Equal(-600))
			Expect(e.logs("mooncake:tp0")).To(ContainElements(
				"PUT http://127.0.0.1:17002/metadata?key=mooncake%2Frpc_meta%2F127.0.0.1%3A17779 curl: Couldn't connect to server err: Failed to connect to 127.0.0.1 port 17002 after 0 ms: Couldn't connect to server",
				"Failed to set location of 127.0.0.1:17779",
				"Failed to initialize transfer engine, rc=-200",
				"Failed to remove location of 127.0.0.1:17779",
			))
		})
		It("registers rpc_meta on the world's server", func() {
			e := launch(opts{version: "0.3.13.post1", metadata: "http"})
			a := setupArgs("localhost", "tcp", "")
			a.MetadataServer = sim.MetadataURL
			Expect(e.setup(a)).To(Equal(0))
		})
	})

	Describe("pybind11 signature", func() {
		It("raises TypeError for a kwarg the version lacks", func() {
			e := launch(opts{version: "0.3.9"})
			a := setupArgs("127.0.0.1:17781", "tcp", "")
			a.PassEngine = true
			a.Kwargs = []engine.Kwarg{{Name: "tenant_id", Value: "t1"}}
			_, err := e.setup(a)
			pe, ok := engine.AsPyError(err)
			Expect(ok).To(BeTrue())
			Expect(pe.Class).To(Equal("TypeError"))
			Expect(pe.Message).To(ContainSubstring("global_segment_size: typing.SupportsInt"))
			Expect(pe.Message).To(HaveSuffix("'127.0.0.1:50051', None; kwargs: tenant_id='t1'"))
		})
		It("accepts 0.3.13's kwargs; a missing ssd_offload_path raises ValueError", func() {
			e := launch(opts{version: "0.3.13.post1"})
			a := setupArgs("127.0.0.1:17793", "tcp", "")
			a.PassEngine = true
			a.Kwargs = []engine.Kwarg{{Name: "tenant_id", Value: "t1"}}
			Expect(e.setup(a)).To(Equal(0))
			e = launch(opts{version: "0.3.13.post1"})
			a.Kwargs = []engine.Kwarg{{Name: "enable_ssd_offload", Value: true}, {Name: "ssd_offload_path", Value: "/tmp/x"}}
			_, err := e.setup(a)
			Expect(err).To(MatchError("ValueError: Invalid FileStorage configuration"))
			Expect(e.logs("mooncake:tp0")).To(ContainElement("FileStorageConfig: storage_filepath does not exist: /tmp/x"))
		})
		It("raises TypeError for a negative size", func() {
			e := launch(opts{version: "0.3.9"})
			a := setupArgs("127.0.0.1:17794", "tcp", "")
			a.GlobalSegmentSize = -1
			_, err := e.setup(a)
			pe, _ := engine.AsPyError(err)
			Expect(pe).NotTo(BeNil())
			Expect(pe.Message).To(HaveSuffix("'127.0.0.1:17794', 'P2PHANDSHAKE', -1, 16777216, 'tcp', '', '127.0.0.1:50051'"))
		})
	})
})
