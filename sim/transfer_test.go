package sim_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// TcpTransport::startTransfer reads the target segment's rpc_meta from the
// metadata service (getRpcMetaEntry) before a byte moves, the own segment
// included; real 0.3.7.post2 with the master-embedded metadata blackholed
// after setup: every warmup put -800 (docs/REAL-FINDINGS.md §21).
var _ = Describe("a transfer's rpc_meta read", func() {
	const getLine = "GET http://127.0.0.1:8080/metadata?key=mooncake%2Frpc_meta%2F127.0.0.1%3A48513 curl: Timeout was reached err: Operation timed out after 3000 milliseconds with 0 bytes received"
	ctx := context.Background()
	metadataDown := faults.Fault{At: time.Second, Kind: faults.MetadataDown, Mode: faults.ModeBlackhole}
	launchHTTP := func(version string, procEnv map[string]string) *env {
		e := launch(opts{version: version, metadata: "master", procEnv: procEnv, faults: []faults.Fault{metadataDown}})
		a := setupArgs("127.0.0.1:48513", "tcp", "")
		a.MetadataServer = sim.MetadataURL
		Expect(e.setup(a)).To(Equal(0))
		return e
	}
	put := func(e *env, key string) int {
		rc, err := e.store.Put(ctx, key, []byte("v"))
		Expect(err).NotTo(HaveOccurred())
		return rc
	}

	It("fails every put once the metadata is unreachable, reading again each time (0.3.7.post2)", func() {
		e := launchHTTP("0.3.7.post2", nil)
		Expect(e.w.Clock().Sleep(ctx, 2*time.Second)).To(Succeed())
		start := e.now()
		Expect(put(e, "k1")).To(Equal(-800))
		Expect(e.now() - start).To(Equal(3 * time.Second))
		Expect(put(e, "k2")).To(Equal(-800))
		Expect(e.logs("mooncake:tp0")).To(ContainElements(getLine,
			"Failed to find location of 127.0.0.1:48513",
			"TcpTransport::startTransfer failed to get RPC meta entry for segment name: 127.0.0.1:48513",
			"Transfer failed for batch 94528297200016 task 0 with status 6",
			"Transfer failed for batch 94528297200032 task 0 with status 6"))
		Expect(e.store.IsExist(ctx, "k1")).To(Equal(0))
	})

	It("keeps a location it has read: puts go on after the metadata goes away", func() {
		e := launchHTTP("0.3.9", nil)
		Expect(put(e, "k1")).To(Equal(0))
		Expect(e.w.Clock().Sleep(ctx, 2*time.Second)).To(Succeed())
		Expect(put(e, "k2")).To(Equal(0))
		Expect(e.logs("mooncake:tp0")).NotTo(ContainElement(getLine))
	})

	It("copies within the process from 0.3.10.post2 on a TCP-only engine, unless MC_STORE_MEMCPY=0", func() {
		e := launchHTTP("0.3.12.post1", nil)
		Expect(e.w.Clock().Sleep(ctx, 2*time.Second)).To(Succeed())
		Expect(put(e, "k1")).To(Equal(0))

		e = launchHTTP("0.3.12.post1", map[string]string{"MC_STORE_MEMCPY": "0"})
		Expect(e.w.Clock().Sleep(ctx, 2*time.Second)).To(Succeed())
		Expect(put(e, "k1")).To(Equal(-800))
		// VLOG(1) from v0.3.11: no batch line.
		Expect(e.logs("mooncake:tp0")).To(ContainElement("TcpTransport::startTransfer failed to get RPC meta entry for segment name: 127.0.0.1:48513"))
		Expect(e.logs("mooncake:tp0")).NotTo(ContainElement(ContainSubstring("Transfer failed for batch")))
	})

	It("needs no metadata service in P2PHANDSHAKE mode", func() {
		e := launch(opts{version: "0.3.7.post2"})
		Expect(e.setup(setupArgs("127.0.0.1", "tcp", ""))).To(Equal(0))
		Expect(put(e, "k1")).To(Equal(0))
	})
})

// client_service.cpp remount_segment: from v0.3.12 the remount after a
// master restart also writes the segment descriptor and the rpc_meta entry
// the restarted master's embedded metadata server lost (Mooncake #2311);
// before, only the master's side comes back.
var _ = Describe("the remount after a master restart", func() {
	ctx := context.Background()
	restart := faults.Fault{At: 5 * time.Second, Kind: faults.Process, Target: "master", Action: "restart"}
	run := func(version string) *env {
		e := launch(opts{version: version, metadata: "master", faults: []faults.Fault{restart}})
		a := setupArgs("127.0.0.1:48513", "tcp", "")
		a.MetadataServer = sim.MetadataURL
		Expect(e.setup(a)).To(Equal(0))
		Expect(e.w.Clock().Sleep(ctx, 20*time.Second)).To(Succeed())
		return e
	}

	It("re-publishes both from 0.3.12: a later transfer finds the location", func() {
		e := run("0.3.12.post1")
		Expect(e.logs("mooncake:tp0")).To(ContainElements(
			"GET http://127.0.0.1:8080/metadata?key=mooncake%2Frpc_meta%2F127.0.0.1%3A48513 http=404 body: metadata not found",
			"Re-publishing RPC meta entry for 127.0.0.1:48513"))
		rc, err := e.store.Put(ctx, "k", []byte("v")) // memcpy: TCP-only
		Expect(err).NotTo(HaveOccurred())
		Expect(rc).To(Equal(0))
	})

	It("does not on 0.3.9: a first transfer after it cannot find the location", func() {
		e := run("0.3.9")
		Expect(e.logs("mooncake:tp0")).NotTo(ContainElement(ContainSubstring("Re-publishing")))
		rc, err := e.store.Put(ctx, "k", []byte("v"))
		Expect(err).NotTo(HaveOccurred())
		Expect(rc).To(Equal(-800))
		Expect(e.logs("mooncake:tp0")).To(ContainElements(
			"GET http://127.0.0.1:8080/metadata?key=mooncake%2Frpc_meta%2F127.0.0.1%3A48513 http=404 body: metadata not found",
			"Failed to find location of 127.0.0.1:48513"))
	})
})

// Only a transfer engine's own freeEngine deletes its rpc_meta key; a
// process that dies (SGLang's scheduler after an init exception) keeps it
// on the HTTP metadata server, which refuses the next engine at that
// local_hostname: every key up to v0.3.11, from v0.3.12 any other value —
// and the new engine's RPC port is a fresh draw (findAvailableTcpPort;
// real 0.3.13.post1: 16817, then 15473). The kernel frees the dead
// process's ports (real 0.3.7.post2, 0.3.9 and 0.3.13.post1 remedies,
// docs/REAL-FINDINGS.md §21).
var _ = Describe("a process killed after setup", func() {
	DescribeTable("leaves its rpc_meta key behind, which refuses the next engine",
		func(version string) {
			ctx := context.Background()
			e := launch(opts{version: version, metadata: "master"})
			a := setupArgs("127.0.0.1:32821", "tcp", "")
			a.MetadataServer = sim.MetadataURL
			Expect(e.setup(a)).To(Equal(0))
			first := listenPort(e.logs("mooncake:tp0"))
			Expect(e.proc.Close(ctx)).To(Succeed())
			mark := len(e.logs("mooncake:tp0"))

			p, err := e.w.StartProcess(ctx, "tp0", nil)
			Expect(err).NotTo(HaveOccurred())
			s, err := p.NewStore(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(s.Setup(ctx, a)).To(Equal(-600))
			second := e.logs("mooncake:tp0")[mark:]
			Expect(listenPort(second)).NotTo(Equal(first))
			Expect(second).To(ContainElements(
				"PUT http://127.0.0.1:8080/metadata?key=mooncake%2Frpc_meta%2F127.0.0.1%3A32821 http=400 body: Duplicate rpc_meta key not allowed",
				"Failed to set location of 127.0.0.1:32821"))
		},
		Entry("0.3.9: any existing key", "0.3.9"),
		Entry("0.3.13.post1: a key with another RPC port", "0.3.13.post1"),
	)
})

var _ = Describe("a re-publication that fails", func() {
	It("is retried at later pings, the segment descriptor first (0.3.12.post1)", func() {
		ctx := context.Background()
		e := launch(opts{version: "0.3.12.post1", metadata: "master", faults: []faults.Fault{
			{At: 5 * time.Second, Kind: faults.Process, Target: "master", Action: "restart"},
			{At: 5 * time.Second, For: 20 * time.Second, Kind: faults.MetadataDown, Mode: faults.ModeBlackhole},
		}})
		a := setupArgs("127.0.0.1:48513", "tcp", "")
		a.MetadataServer = sim.MetadataURL
		Expect(e.setup(a)).To(Equal(0))
		Expect(e.w.Clock().Sleep(ctx, 40*time.Second)).To(Succeed())
		logs := e.logs("mooncake:tp0")
		Expect(logs).To(ContainElements(
			"Failed to re-publish segment descriptor to metadata server, rc=-200, will retry in next heartbeat cycle",
			"Failed to re-publish RPC meta entry for 127.0.0.1:48513",
			"Failed to re-publish RPC meta entry to metadata server, rc=-200, will retry in next heartbeat cycle",
			"Retry: failed to re-publish segment descriptor to metadata server, rc=-200",
			"Retry: successfully re-published segment descriptor to metadata server",
			"Retry: successfully re-published RPC meta entry to metadata server"))
		rc, err := e.store.Put(ctx, "k", []byte("v"))
		Expect(err).NotTo(HaveOccurred())
		Expect(rc).To(Equal(0))
	})
})

// A P2PHANDSHAKE engine opens a remote segment by a handshake to the
// segment's name; an owner on a metadata service listens elsewhere (the new
// RPC mapping, published in rpc_meta), so the connect is refused at every
// transfer to it (real 0.3.13.post1, 2026-12-03: SGLang at its default
// P2PHANDSHAKE beside a mooncake_client on HTTP metadata, CI run 46's
// `standalone/default-allocator` remedy: ten warmup puts placed in the
// client's segment, ten times -800).
var _ = Describe("a P2P store beside a mooncake_client on HTTP metadata", func() {
	ctx := context.Background()
	puts := func(metadataServer string) (codes []int, lines []string) {
		e := launch(opts{version: "0.3.13.post1", metadata: "http", client: true})
		a := setupArgs("localhost", "tcp", "")
		a.MetadataServer = metadataServer
		Expect(e.setup(a)).To(Equal(0))
		for i := range 16 {
			rc, err := e.store.Put(ctx, fmt.Sprintf("k%d", i), []byte("v"))
			Expect(err).NotTo(HaveOccurred())
			codes = append(codes, rc)
		}
		return codes, e.logs("mooncake:tp0")
	}

	It("fails each put the master places in the client's segment: its name's port refuses the handshake", func() {
		codes, lines := puts("P2PHANDSHAKE")
		Expect(codes).To(ContainElement(0), "the puts placed in the store's own segment")
		Expect(codes).To(ContainElement(-800))
		var refused []string
		for _, l := range lines {
			if strings.HasPrefix(l, "SocketHandShakePlugin: connect()") {
				refused = append(refused, l)
			}
		}
		failed := 0
		for _, c := range codes {
			if c == -800 {
				failed++
			}
		}
		Expect(refused).To(HaveLen(failed))
		Expect(refused[0]).To(MatchRegexp(`^SocketHandShakePlugin: connect\(\)127\.0\.0\.1:\d+: Connection refused \[111\]$`))
		Expect(lines).To(ContainElements(MatchRegexp(`^Failed to open segment for endpoint='127\.0\.0\.1:\d+'$`), "Failed to submit transfer operation"))
	})

	It("stores every put when the store uses the client's metadata server", func() {
		codes, lines := puts(sim.MetadataURL)
		Expect(codes).To(HaveEach(0))
		Expect(lines).NotTo(ContainElement(HavePrefix("SocketHandShakePlugin")))
	})
})
