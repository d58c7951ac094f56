package sim_test

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/models/client"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// The client pool's idle connections to a master that died (pool.go;
// real 0.3.12.post1, explore seed 2026: the first put after the master
// went away read "End of file" in 1 ms, the next call dialled: 4.27 s).
var _ = Describe("pooled master connections after the master died", func() {
	until := func(e *env, t time.Duration) {
		Expect(e.w.Clock().Sleep(ctx, t-e.now())).To(Succeed())
	}
	// timed runs a put and returns its code and the virtual time it took.
	timed := func(e *env, key string) (int, time.Duration) {
		start := e.now()
		rc, err := e.store.Put(ctx, key, []byte("v"))
		Expect(err).NotTo(HaveOccurred())
		return rc, e.now() - start
	}
	count := func(e *env, text string) int {
		n := 0
		for _, l := range e.logs("mooncake:tp0") {
			if l == text {
				n++
			}
		}
		return n
	}

	// eofAfterRefuse: a 0.3.12.post1 client set up at 0 s (its ping and
	// task-poll threads tick at whole seconds), the master refused at 3.5 s,
	// and a put at 3.6 s that reads End of file on a closed connection.
	eofAfterRefuse := func(port string) *env {
		e := launch(opts{version: "0.3.12.post1", seed: 5, faults: []faults.Fault{refused(3500 * time.Millisecond)}})
		Expect(e.setup(setupArgs("127.0.0.1:"+port, "tcp", ""))).To(Equal(0))
		until(e, 3600*time.Millisecond)
		rc, took := timed(e, "a")
		Expect(rc).To(Equal(-900))
		Expect(took).To(Equal(time.Duration(0)))
		Expect(count(e, "RPC call failed: End of file")).To(Equal(1))
		return e
	}

	It("fails the first call at once with End of file, then dials (refused)", func() {
		e := eofAfterRefuse("17811")
		until(e, 4100*time.Millisecond) // the task-poll thread took the other one at 4 s
		rc, took := timed(e, "b")
		Expect(rc).To(Equal(-900))
		Expect(took).To(Equal(client.RefusedPoolCost))
		Expect(count(e, "Client not available")).To(Equal(2), "the put's and the ping's (dialling since 4 s)")
	})

	It("holds two connections: two calls in a row read End of file, the third dials", func() {
		e := eofAfterRefuse("17815")
		rc, took := timed(e, "b")
		Expect(rc).To(Equal(-900))
		Expect(took).To(Equal(time.Duration(0)))
		rc, took = timed(e, "c")
		Expect(rc).To(Equal(-900))
		Expect(took).To(Equal(client.RefusedPoolCost))
		Expect(count(e, "RPC call failed: End of file")).To(Equal(2))
	})

	It("gives the second closed connection to the task-poll thread (0.3.10.post1+), so the ping dials", func() {
		e := eofAfterRefuse("17812")
		until(e, 4100*time.Millisecond)
		Expect(count(e, "RPC call failed: End of file")).To(Equal(1), "the put's; the task poll's is not logged by the model")
		Expect(count(e, "Failed to ping master")).To(Equal(0), "the ping is dialling a refused master")
		until(e, 4*time.Second+client.RefusedPoolCost+100*time.Millisecond)
		Expect(count(e, "Failed to ping master")).To(Equal(1))
	})

	It("reads End of file once after a master restart, then works", func() {
		restart := faults.Fault{At: 3500 * time.Millisecond, Kind: faults.Process, Target: "master", Action: "restart"}
		e := launch(opts{version: "0.3.13.post1", seed: 5, faults: []faults.Fault{restart}})
		Expect(e.setup(setupArgs("127.0.0.1:17813", "tcp", ""))).To(Equal(0))
		until(e, 3600*time.Millisecond)
		rc, took := timed(e, "a")
		Expect(rc).To(Equal(-900))
		Expect(took).To(Equal(time.Duration(0)))
		until(e, 4100*time.Millisecond)
		Expect(timed(e, "b")).To(Equal(0))
	})

	It("has no pooled connection for a client that never reached the master", func() {
		e := launch(opts{version: "0.3.12.post1", seed: 5, faults: []faults.Fault{refused(0)}})
		Expect(e.setup(setupArgs("127.0.0.1:17814", "tcp", ""))).To(Equal(-600))
		Expect(count(e, "RPC call failed: End of file")).To(Equal(0))
	})
})

// client-down refuse is SIGKILL of mooncake_client, as on the real engine:
// nothing unmounts its segment, so after the fault clears the master holds
// the killed client's segment and the new one's, and RandomAllocationStrategy
// places puts on either; one on the dead segment cannot be transferred (real
// 0.3.9, scenarios/regressions/divergence-stale-segment-seed-2003.yaml: -800, then 0).
var _ = Describe("mooncake_client killed by client-down", func() {
	It("leaves its segment mounted and unreachable until client_ttl", func() {
		down := faults.Fault{At: time.Second, Kind: faults.ClientDown, Mode: faults.ModeRefuse}
		e := launch(opts{version: "0.3.9", metadata: "http", client: true, faults: []faults.Fault{down}})
		Expect(e.w.Master().SegmentNames()).To(HaveLen(1))
		Expect(e.w.Clock().Sleep(ctx, 2*time.Second)).To(Succeed())
		Expect(e.w.ClearFaults(ctx)).To(Succeed())
		Expect(e.w.Master().SegmentNames()).To(HaveLen(2), "the killed client's segment and the new one's")
		Expect(e.store.SetupDummy(ctx, 64*MiB, 16*MiB, sim.ClientAddr)).To(Equal(0))
		seen := map[int]int{}
		for i := range 16 {
			rc, err := e.store.Put(ctx, fmt.Sprintf("k%d", i), []byte("v"))
			Expect(err).NotTo(HaveOccurred())
			seen[rc]++
		}
		Expect(seen).To(HaveLen(2))
		Expect(seen).To(HaveKey(-800))
		Expect(seen).To(HaveKey(0))
		Expect(e.logs("client")).To(ContainElement(MatchRegexp(`^Transfer failed for key: k\d+ with error: TRANSFER_FAIL$`)))
	})
})

// A call to a refused master reconnects through coro_io::client_pool: four
// connects poolConnectGap (RefusedPoolCost/4) apart, "out of max limit" one
// gap after the last. A master back by one of those connects answers the
// call there (client_pool.hpp reconnect; real 0.3.8.post1 and 0.3.13.post1,
// seed 184: the ping whose next connect came after the clear succeeded and
// mooncake_client remounted before the remedy's first put).
var _ = Describe("a refused master call when the master comes back", func() {
	gap := client.RefusedPoolCost / 4
	setupTime := func(f []faults.Fault) (int, time.Duration, *env) {
		e := launch(opts{version: "0.3.13.post1", seed: 5, faults: f})
		rc, err := e.setup(setupArgs("127.0.0.1:17820", "tcp", ""))
		Expect(err).NotTo(HaveOccurred())
		return rc, e.now(), e
	}
	// refusedAfterSetup: a 0.3.13.post1 client set up at 0 s, its master
	// refused from 1.5 s for d, the world run until t.
	refusedAfterSetup := func(port string, d, t time.Duration) *env {
		refuse := faults.Fault{At: 1500 * time.Millisecond, For: d, Kind: faults.MasterDown, Mode: faults.ModeRefuse}
		e := launch(opts{version: "0.3.13.post1", seed: 5, faults: []faults.Fault{refuse}})
		Expect(e.setup(setupArgs("127.0.0.1:"+port, "tcp", ""))).To(Equal(0))
		Expect(e.w.Clock().Sleep(ctx, t-e.now())).To(Succeed())
		return e
	}
	It("goes on at the first connect that finds it back (the foreground's connect)", func() {
		rc, healthy, _ := setupTime(nil)
		Expect(rc).To(Equal(0))
		back := faults.Fault{At: 0, For: 1500 * time.Millisecond, Kind: faults.MasterDown, Mode: faults.ModeRefuse}
		rc, took, e := setupTime([]faults.Fault{back})
		Expect(rc).To(Equal(0))
		Expect(took).To(Equal(healthy+2*gap), "refused at +0 and +1.07 s, through at +2.13 s")
		Expect(e.logs("mooncake:tp0")).NotTo(ContainElement("Client not available"))
	})
	It("fails one gap after the last connect when the master comes back after it", func() {
		back := faults.Fault{At: 0, For: 3*gap + 100*time.Millisecond, Kind: faults.MasterDown, Mode: faults.ModeRefuse}
		e := launch(opts{version: "0.3.13.post1", seed: 5, faults: []faults.Fault{back}, procEnv: map[string]string{"MC_STORE_CLIENT_SETUP_RETRIES": "1"}})
		Expect(e.setup(setupArgs("127.0.0.1:17821", "tcp", ""))).To(Equal(-600))
		Expect(e.logs("mooncake:tp0")).To(ContainElement("Client not available"))
	})
	It("lets the ping thread's refused ping through at its next connect", func() {
		e := refusedAfterSetup("17822", 2500*time.Millisecond, 5*time.Second)
		// 2 s: the ping reads End of file on its closed connection; 3 s: it
		// dials, refused; its next connect (3 s + gap = 4.07 s) comes after
		// the clear at 4 s and succeeds.
		Expect(e.store.HealthCheck(ctx)).To(Equal(0))
		port, tcp := listenPort(e.logs("mooncake:tp0")), tcpListenPort(e.logs("mooncake:tp0"))
		// The TCP transport's own draw from the range (from 0.3.5).
		Expect(tcp).To(And(BeNumerically(">=", 15000), BeNumerically("<=", 17000), Not(Equal(port))))
		Expect(e.logs("mooncake:tp0")).To(HaveExactElements(
			"Storage root directory is not set. persisting data is disabled.",
			"Metrics reporting is disabled (set MC_TE_METRIC=1 to enable)",
			"Transfer Engine parseHostNameWithPort. server_name: 127.0.0.1 port: 17822",
			fmt.Sprintf("Transfer Engine RPC using P2P handshake, listening on 127.0.0.1:%d", port),
			"Transfer engine auto discovery is disabled for protocol: tcp",
			"Local segment descriptor not found", // P2P TCP install, from 0.3.10.post2
			fmt.Sprintf("TcpTransport: listen on port %d", tcp),
			"MC_STORE_MEMCPY not set, auto-detected: TCP-only environment, memcpy enabled",
			"Registering local memory: 16777216 bytes",
			"Mounting segment: 16777216 bytes, 16777216 of 16777216",
			"RPC call failed: End of file",
			"Failed to ping master",
		), "no Client not available: the ping dialling since 3 s got through at 3 s + gap")
	})
	It("lets the reconnect after the third failed ping through at its next connect", func() {
		// 2 s: End of file (1); 3 s and 8.27 s: refused pings failing 4.27 s
		// later (2, 3); the reconnect's ServiceReady from 12.53 s connects
		// again at 13.6 and 14.66 s, after the clear at 14 s.
		e := refusedAfterSetup("17823", 12500*time.Millisecond, 15*time.Second)
		Expect(e.store.HealthCheck(ctx)).To(Equal(0))
		logs := e.logs("mooncake:tp0")
		Expect(logs).To(ContainElement(HavePrefix("Failed to ping master for 3 times (non-HA); reconnecting to ")))
		Expect(logs).To(ContainElement(HavePrefix("Reconnected to master ")))
		Expect(logs).NotTo(ContainElement(HavePrefix("Reconnect failed")))
	})
})

// A slicer on the master link costs what real's message sizes cut into
// slices cost (mooncake.Profile.MasterWire, faults' slicer): real
// 0.3.13.post1 with 64-byte slices 200 ms apart, setup 1029 ms and a put
// 1409 ms (PutStart and PutEnd on the pool's two connections in turn).
var _ = Describe("a slicer on the master link", func() {
	It("costs the real messages' slices", func() {
		slicer := faults.Fault{At: 0, Kind: faults.Link, Target: "master", Mode: faults.ModeSlicer, Params: faults.SlicerParams{AverageSize: 64, Delay: 200 * time.Millisecond}}
		e := launch(opts{version: "0.3.13.post1", seed: 5, faults: []faults.Fault{slicer}})
		Expect(e.setup(setupArgs("127.0.0.1:17830", "tcp", ""))).To(Equal(0))
		Expect(e.now()).To(Equal(client.CreateCost + 1000*time.Millisecond))
		Expect(e.w.Clock().Sleep(ctx, 2500*time.Millisecond-e.now())).To(Succeed())
		start := e.now()
		Expect(e.store.Put(ctx, "sglang_mooncake_store_warmup_key0123456789abcdef0123456789abcdef", []byte("v"))).To(Equal(0))
		Expect(e.now() - start).To(Equal(1400 * time.Millisecond))
	})
})

// Client::Get's lease check (0.3.7+): the lease counts from before the
// client sent GetReplicaList; a read finishing after it fails with
// LEASE_EXPIRED (real 0.3.9, a 16-byte/500 ms slicer on the master link:
// the get's GetReplicaList of a 64-character key took 7 s against the 5 s lease;
// seed 94030). Here a 1-character key, slices 1 s apart: 8 s.
var _ = Describe("a get slower than its lease", func() {
	slow := faults.Fault{At: 0, Kind: faults.Link, Target: "master", Mode: faults.ModeSlicer, Params: faults.SlicerParams{AverageSize: 16, Delay: time.Second}}
	get := func(version string) (int, []string) {
		e := launch(opts{version: version, seed: 5})
		Expect(e.setup(setupArgs("127.0.0.1:17840", "tcp", ""))).To(Equal(0))
		Expect(e.store.Put(ctx, "k", []byte("v"))).To(Equal(0))
		Expect(e.w.Arm(ctx, []faults.Fault{slow})).To(Succeed())
		v, err := e.store.Get(ctx, "k")
		Expect(err).NotTo(HaveOccurred())
		return len(v), e.logs("mooncake:tp0")
	}
	It("fails with LEASE_EXPIRED from 0.3.7", func() {
		n, logs := get("0.3.9")
		Expect(n).To(Equal(0))
		Expect(logs).To(ContainElement("lease_expired_before_data_transfer_completed key=k"))
	})
	It("reads the value before 0.3.7", func() {
		n, logs := get("0.3.6.post1")
		Expect(n).To(Equal(1))
		Expect(logs).NotTo(ContainElement(HavePrefix("lease_expired")))
	})
})
