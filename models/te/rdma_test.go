package te_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// stepClock is a virtual engine.Clock for one model.
type stepClock struct{ now time.Duration }

func (c *stepClock) Now() time.Duration { return c.now }
func (c *stepClock) Sleep(_ context.Context, d time.Duration) error {
	c.now += d
	return nil
}

// rdmaEngine is an engine of version with mlx5_0 installed for rdma and
// its host's RDMAFaults, its workers started at 0.
func rdmaEngine(t *testing.T, version string) (*te.Engine, *te.RDMAFaults, *[]string) {
	t.Helper()
	return rdmaEngineOn(t, version, engine.RDMADevice{Name: "mlx5_0"})
}

// rdmaEngineOn is rdmaEngine on the device d.
func rdmaEngineOn(t *testing.T, version string, d engine.RDMADevice) (*te.Engine, *te.RDMAFaults, *[]string) {
	t.Helper()
	return rdmaEngineEnv(t, version, d, nil)
}

// rdmaEngineEnv is rdmaEngineOn with the process environment env.
func rdmaEngineEnv(t *testing.T, version string, d engine.RDMADevice, env map[string]string) (*te.Engine, *te.RDMAFaults, *[]string) {
	t.Helper()
	p, err := mooncake.ProfileFor(version)
	if err != nil {
		t.Fatal(err)
	}
	h := &te.RDMAFaults{}
	var logs []string
	e := te.New(te.Config{Profile: p, Env: env, Host: te.Host{Name: "n", RDMA: []engine.RDMADevice{d}, RDMAFaults: h},
		Log: mlog.Func(func(_, text string) { logs = append(logs, text) })})
	dev := d.Name
	if err := e.InitStore(context.Background(), "localhost:12345", te.P2PHandshake, "rdma", &dev); err != nil {
		t.Fatal(err)
	}
	e.StartWorkers(0)
	logs = logs[:0]
	return e, h, &logs
}

// count is how many of logs contain s.
func count(logs []string, s string) int {
	n := 0
	for _, l := range logs {
		if strings.Contains(l, s) {
			n++
		}
	}
	return n
}

func status(t *testing.T, mode string) faults.WCStatus {
	t.Helper()
	s, ok := faults.WCStatusOf(mode)
	if !ok {
		t.Fatal(mode)
	}
	return s
}

func TestRDMATransferErrorThreshold(t *testing.T) {
	e, h, logs := rdmaEngine(t, "0.3.9")
	clock := &stepClock{now: time.Second}
	h.Arm(clock.now, faults.RDMAPrimitive{Status: status(t, "local_protection")})
	put := func() te.RDMAOutcome {
		*logs = (*logs)[:0]
		return e.RDMATransfer(context.Background(), clock, true, 0x1000, 0x2000, 4096, "localhost:12345")
	}
	// Puts 1-3: a 4 KiB slice fails nine times (retry_cnt 0 … 8).
	for i := range 3 {
		if got := put(); got != te.RDMAFailed {
			t.Fatalf("put %d: %v", i+1, got)
		}
		if n := count(*logs, "): local protection error"); n != 9 || len(*logs) != 9 {
			t.Fatalf("put %d: %d failed slices, %q", i+1, n, *logs)
		}
	}
	want := "Worker: Process failed for slice (opcode: 1, source_addr: 0x1000, length: 4096, dest_addr: 0x2000, local_nic: mlx5_0, peer_nic: localhost:12345@mlx5_0, dest_rkey: 2097154, retry_cnt: 8): local protection error"
	if (*logs)[8] != want {
		t.Fatalf("%q, want %q", (*logs)[8], want)
	}
	// Put 4: the 33rd failure marks the RNIC inactive; three tries left.
	if got := put(); got != te.RDMAFailed {
		t.Fatal(got)
	}
	wantLogs := []string{"retry_cnt: 0)", "retry_cnt: 1)", "retry_cnt: 2)", "retry_cnt: 3)", "retry_cnt: 4)", "retry_cnt: 5)",
		"Too many errors found in local RNIC localhost:15000@mlx5_0, mark it inactive",
		"Context is not active: mlx5_0", "Context is not active: mlx5_0", "Context is not active: mlx5_0"}
	if len(*logs) != len(wantLogs) {
		t.Fatalf("%q", *logs)
	}
	for i, w := range wantLogs {
		if !strings.Contains((*logs)[i], w) {
			t.Fatalf("line %d: %q, want %q", i, (*logs)[i], w)
		}
	}
	// Before the monitor's next reset (1.1 s, 2.2 s …) the submit is refused.
	clock.now = 1050 * time.Millisecond
	if got := put(); got != te.RDMASubmitFailed || strings.Join(*logs, "|") != "Device 0 is not active" {
		t.Fatalf("%v %q", got, *logs)
	}
	// After it: active again, and the first failure trips the counter again.
	clock.now = 1100 * time.Millisecond
	if got := put(); got != te.RDMAFailed || count(*logs, "Too many errors") != 1 || count(*logs, "): local protection error") != 1 {
		t.Fatalf("%v %q", got, *logs)
	}
}

func TestRDMATransferSuccessKeepsRNIC(t *testing.T) {
	// One completion ever succeeded (after_wr 1): success_nr_polls > 0,
	// so no number of failures marks the RNIC inactive.
	e, h, logs := rdmaEngine(t, "0.3.9")
	clock := &stepClock{}
	h.Arm(0, faults.RDMAPrimitive{Status: status(t, "remote_access"), AfterWR: 1})
	if got := e.RDMATransfer(context.Background(), clock, true, 0, 0, 4096, "p:1"); got != te.RDMADone {
		t.Fatal(got)
	}
	for range 10 {
		if got := e.RDMATransfer(context.Background(), clock, false, 0, 0, 4096, "p:1"); got != te.RDMAFailed {
			t.Fatal(got)
		}
	}
	if n, tm := count(*logs, "(opcode: 0,"), count(*logs, "Too many"); n != 90 || tm != 0 {
		t.Fatalf("%d failures, %d Too many", n, tm)
	}
	if !strings.HasSuffix((*logs)[0], "): remote access error") {
		t.Fatal((*logs)[0])
	}
}

func TestRDMATransferFlushedSlices(t *testing.T) {
	// Three slices in one chain: the first fails, the other two flush.
	// Up to 0.3.10.post2 the flushed ones count and retry (27 failures a
	// transfer: the second trips the threshold in its second round); from
	// 0.3.11 they fail at once, uncounted (9 a transfer: the fourth).
	for _, c := range []struct {
		version   string
		tripsAt   int // transfer that logs Too many
		perFailed int // logged failures of a transfer
	}{{"0.3.9", 2, 9}, {"0.3.11.post1", 4, 9}} {
		e, h, logs := rdmaEngine(t, c.version)
		clock := &stepClock{}
		h.Arm(0, faults.RDMAPrimitive{Status: status(t, "local_protection")})
		for i := 1; i <= c.tripsAt; i++ {
			*logs = (*logs)[:0]
			if got := e.RDMATransfer(context.Background(), clock, true, 0, 0, 3*65536, "p:1"); got != te.RDMAFailed {
				t.Fatalf("%s: %v", c.version, got)
			}
			if tm := count(*logs, "Too many"); (tm == 1) != (i == c.tripsAt) {
				t.Fatalf("%s transfer %d: %q", c.version, i, *logs)
			}
			if i == 1 && count(*logs, "length: 65536") != c.perFailed {
				t.Fatalf("%s: %q", c.version, *logs)
			}
		}
	}
}

func TestRDMAPortDown(t *testing.T) {
	e, h, logs := rdmaEngine(t, "0.3.11.post1")
	clock := &stepClock{now: 1000 * time.Millisecond}
	heal := h.Arm(clock.now, faults.RDMAPrimitive{Status: status(t, faults.ModePortDown), PortDown: true})
	put := func() te.RDMAOutcome {
		*logs = (*logs)[:0]
		return e.RDMATransfer(context.Background(), clock, true, 0, 0, 4096, "p:1")
	}
	clock.now = 1050 * time.Millisecond
	if got := put(); got != te.RDMASubmitFailed {
		t.Fatal(got)
	}
	want := []string{"Worker: Received context async event port error for context mlx5_0", "Worker: Context mlx5_0 is now inactive", "Device 0 is not active"}
	if strings.Join(*logs, "|") != strings.Join(want, "|") {
		t.Fatalf("%q", *logs)
	}
	// The monitor reset it at 1.1 s; the port is still down: each try
	// ends in the retry counter after 8 local ACK timeouts (537 ms).
	clock.now = 1200 * time.Millisecond
	if got := put(); got != te.RDMAFailed || count(*logs, "): transport retry counter exceeded") != 9 {
		t.Fatalf("%v %q", got, *logs)
	}
	if want := 1200*time.Millisecond + 9*536870912*time.Nanosecond; clock.now != want {
		t.Fatalf("clock %v, want %v", clock.now, want)
	}
	heal(clock.now)
	if got := put(); got != te.RDMADone || strings.Join(*logs, "|") != "Worker: Received context async event port active for context mlx5_0|Worker: Context mlx5_0 is now active" {
		t.Fatalf("%v %q", got, *logs)
	}
}

func TestRDMAUnsupported(t *testing.T) {
	p := faults.RDMAPrimitive{Fault: faults.Fault{Kind: faults.RDMA, Target: "tp0", Mode: "local_protection"}, Node: "tp0", Status: status(t, "local_protection")}
	nodes := []engine.NodeSpec{{Name: "tp0", RDMA: []engine.RDMADevice{{Name: "mlx5_0"}}}, {Name: "tp1"}, {Name: "tp3", RDMA: []engine.RDMADevice{{Name: "mlx5_0"}, {Name: "mlx5_1"}}}}
	prof := func(v string) mooncake.Profile {
		pr, err := mooncake.ProfileFor(v)
		if err != nil {
			t.Fatal(err)
		}
		return pr
	}
	for _, c := range []struct {
		node, version, want string
	}{
		{"tp0", "0.3.9", ""},
		{"tp0", "0.3.11.post1", ""},
		{"tp0", "0.3.12.post1", ""},
		{"tp3", "0.3.12.post1", "rdma target=tp0 mode=local_protection: the RDMA worker pool of Mooncake 0.3.12.post1 (rail failover) is modelled for a node with one RNIC only (tp3 has 2)"},
		{"tp0", "0.3.13.post1", "rdma target=tp0 mode=local_protection: the RDMA worker pool of Mooncake 0.3.13.post1 is not modelled (v0.3.8 … v0.3.12.post1 are)"},
		{"tp0", "0.3.7.post2", "rdma target=tp0 mode=local_protection: the RDMA worker pool of Mooncake 0.3.7.post2 is not modelled (v0.3.8 … v0.3.12.post1 are)"},
		{"tp1", "0.3.9", "rdma target=tp0 mode=local_protection: node tp1 has no RNIC (nic.rdma)"},
		{"tp2", "0.3.9", "rdma target=tp0 mode=local_protection: no node tp2 in this topology"},
	} {
		p.Node = c.node
		if got := te.RDMAUnsupported(p, nodes, prof(c.version)); got != c.want {
			t.Errorf("%s@%s: %q, want %q", c.node, c.version, got, c.want)
		}
	}
	// v0.3.12's pool is modelled for work-completion statuses, local or
	// not, and not for the endpoint faults.
	p.Node, p.Status = "tp0", status(t, "retry_exceeded")
	if got := te.RDMAUnsupported(p, nodes, prof("0.3.12")); got != "" {
		t.Errorf("%q, want none", got)
	}
	p.StaleHandshake = true
	if got, want := te.RDMAUnsupported(p, nodes, prof("0.3.12")), "rdma target=tp0 mode=local_protection: the RDMA worker pool of Mooncake 0.3.12 (rail failover) is modelled for work-completion errors, a port flap and a used-up QP pool only"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// v0.3.12's pool with a remote status (worker_pool.cpp v0.3.12.post1:
// 606-637, :714-790): each pass logs the first failed slice, deletes the
// endpoint and sends every slice round again to the one peer NIC until
// retry_cnt reaches max_retry_cnt (9); no Local-side line, no context
// failure, so the context stays active however many transfers fail. A
// retry-exceeded completion takes the HCA's retry time.
func TestRDMARailsRemoteFailure(t *testing.T) {
	clock, logs, put := railsFailing(t, "retry_exceeded")
	if got := put(4096); got != te.RDMAFailed {
		t.Fatal(got)
	}
	var want []string
	for r := 0; r < 9; r++ {
		want = append(want, fmt.Sprintf("Worker: Process failed for slice (opcode: 1, source_addr: 0x1000, length: 4096, dest_addr: 0x2000, local_nic: mlx5_0, peer_nic: p:1@mlx5_0, dest_rkey: 2097154, retry_cnt: %d, max_retry_cnt: 9): transport retry counter exceeded", r))
	}
	if strings.Join(*logs, "|") != strings.Join(want, "|") {
		t.Fatalf("%q", *logs)
	}
	if clock.now != 9*(8*4096*time.Nanosecond*(1<<14)) {
		t.Fatalf("clock %v", clock.now)
	}
	// Two slices: the first fails each pass, the second flushes; both out
	// of retries after nine passes.
	if got := put(2 * 65536); got != te.RDMAFailed || len(*logs) != 9 || count(*logs, "retry_cnt: 8, max_retry_cnt: 9") != 1 {
		t.Fatalf("%v %q", got, *logs)
	}
	for i := 0; i < 40; i++ {
		put(4096)
	}
	if count(*logs, "Local-side") != 0 || count(*logs, "All rails failed") != 0 || len(*logs) != 9 {
		t.Fatalf("%q", *logs)
	}
}

// v0.3.12's pool (worker_pool.cpp v0.3.12.post1:523-672, :1370-1386): a
// local status fails the slice after one try on a node with one RNIC,
// with one Local-side line per poll pass; the flushed rest of the chain
// goes round again. 32 failing passes mark the context inactive; the next
// transfer finds no active device.
func TestRDMARailsLocalFailure(t *testing.T) {
	_, logs, put := railsFailing(t, "local_protection")
	if got := put(4096); got != te.RDMAFailed {
		t.Fatal(got)
	}
	want := []string{
		"Worker: Process failed for slice (opcode: 1, source_addr: 0x1000, length: 4096, dest_addr: 0x2000, local_nic: mlx5_0, peer_nic: p:1@mlx5_0, dest_rkey: 2097154, retry_cnt: 0, max_retry_cnt: 9): local protection error",
		"Local-side RDMA failure detected on context mlx5_0, peer=p:1@mlx5_0",
	}
	if strings.Join(*logs, "|") != strings.Join(want, "|") {
		t.Fatalf("%q", *logs)
	}
	// Three slices: one pass each (the first fails, the rest flush and go
	// round), retry_cnt 0, 1, 2.
	if got := put(3 * 65536); got != te.RDMAFailed || count(*logs, "Local-side RDMA failure") != 3 || count(*logs, "retry_cnt: 2, max_retry_cnt: 9") != 1 {
		t.Fatalf("%v %q", got, *logs)
	}
	for i := 5; i <= 32; i++ {
		put(4096)
	}
	if count(*logs, "All rails failed for context mlx5_0 for 32 consecutive attempts, marking inactive") != 1 {
		t.Fatalf("%q", *logs)
	}
	if got := put(4096); got != te.RDMANoActiveDevice || len(*logs) != 0 {
		t.Fatalf("%v %q", got, *logs)
	}
}

// The handshake: a peer NIC whose GID is in another subnet fails the
// peer's RTR after 1 s (its log), its empty reply is a mismatch to the
// active side, the endpoint is inactive and retried once past 1 s; the same
// subnet connects.
func TestRDMAHandshakeRTRTimeout(t *testing.T) {
	for _, tc := range []struct{ version string }{{"0.3.9"}, {"0.3.11.post1"}} {
		p, err := mooncake.ProfileFor(tc.version)
		if err != nil {
			t.Fatal(err)
		}
		subnet := "10.0.2.0/24"
		e, clock, put, lp, plp := peeredEngine(t, p, func() []engine.RDMADevice { return []engine.RDMADevice{{Name: "mlx5_9", Subnet: subnet}} })
		if got := put(); got != te.RDMAFailed || clock.now != time.Second {
			t.Fatalf("%s: first put %v at %v", tc.version, got, clock.now)
		}
		want := []string{"Invalid argument: received packet mismatch, local.local_nic_path: " + e.ServerName() + "@mlx5_0, local.peer_nic_path: peer:1@mlx5_9, peer.local_nic_path: , peer.peer_nic_path: ", "Worker: Cannot make connection for endpoint: peer:1@mlx5_9, mark it inactive"}
		if strings.Join(*lp, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s: logs %q", tc.version, *lp)
		}
		if len(*plp) != 1 || (*plp)[0] != "[Handshake] Failed to modify QP to RTR, check mtu, gid, peer lid, peer qp num: Connection timed out [110]" {
			t.Fatalf("%s: peer logs %q", tc.version, *plp)
		}
		// Within 1 s of the failure the endpoint stays inactive: no
		// handshake, the slice fails silently.
		clock.now += 500 * time.Millisecond
		if got := put(); got != te.RDMAFailed || len(*lp) != 0 || len(*plp) != 0 || clock.now != 1500*time.Millisecond {
			t.Fatalf("%s: second put %v, %q %q", tc.version, got, *lp, *plp)
		}
		// Past 1 s it is deleted and the same subnet connects.
		clock.now += time.Second
		subnet = "10.0.1.0/24"
		if got := put(); got != te.RDMADone || len(*lp) != 0 || len(*plp) != 0 {
			t.Fatalf("%s: third put %v, %q %q", tc.version, got, *lp, *plp)
		}
	}
}

// A used-up QP pool: each try's new endpoint fails in ibv_create_qp; up to
// 0.3.10.post2 the dropped endpoint's unset QP is destroyed (a crash), from
// 0.3.11 the slice uses up its nine tries. Healed, the transfer goes
// through. An EFA device refuses every RC queue pair the same way, with
// EOPNOTSUPP, and nothing heals it.
func TestRDMATransferCreateQPFails(t *testing.T) {
	for _, c := range []struct {
		version string
		efa     bool
		want    te.RDMAOutcome
		lines   int
	}{
		{"0.3.9", false, te.RDMACrashed, 1},
		{"0.3.10.post2", false, te.RDMACrashed, 1},
		{"0.3.11.post1", false, te.RDMAFailed, 9},
		{"0.3.10.post1", true, te.RDMACrashed, 1},
		{"0.3.11.post1", true, te.RDMAFailed, 9},
		{"0.3.12.post1", false, te.RDMAFailed, 9},
		{"0.3.12.post1", true, te.RDMAFailed, 9},
	} {
		dev, line := engine.RDMADevice{Name: "mlx5_0"}, "Failed to create QP: Cannot allocate memory [12]"
		if c.efa {
			dev, line = engine.RDMADevice{Name: "rdmap79s0", NoRC: true}, "Failed to create QP: Operation not supported [95]"
		}
		e, h, logs := rdmaEngineOn(t, c.version, dev)
		clock := &stepClock{now: time.Second}
		heal := func(time.Duration) {}
		if !c.efa {
			heal = h.Arm(clock.now, faults.RDMAPrimitive{QPExhausted: true})
		}
		if got := e.RDMATransfer(context.Background(), clock, true, 0x1000, 0x2000, 4096, "localhost:12345"); got != c.want {
			t.Fatalf("%s efa=%v: %v, want %v", c.version, c.efa, got, c.want)
		}
		if n := count(*logs, line); n != c.lines || len(*logs) != c.lines {
			t.Fatalf("%s efa=%v: %q", c.version, c.efa, *logs)
		}
		if c.efa {
			continue
		}
		heal(clock.now)
		*logs = (*logs)[:0]
		if got := e.RDMATransfer(context.Background(), clock, true, 0x1000, 0x2000, 4096, "localhost:12345"); got != te.RDMADone || len(*logs) != 0 {
			t.Fatalf("%s healed: %v, %q", c.version, got, *logs)
		}
	}
}

// MC_RETRY_CNT is every slice's max_retry_cnt (rdma_transport.cpp
// v0.3.9:455,492, v0.3.12.post1:578,616): 3 tries, or the default 9 when
// the value is outside 1..127 (config.cpp's warning, at the engine's start).
func TestRDMARetryCount(t *testing.T) {
	for _, tc := range []struct {
		version, value string
		tries          int
		max            string
	}{
		{"0.3.9", "3", 3, ""}, {"0.3.12.post1", "3", 3, ", max_retry_cnt: 3"},
		{"0.3.12.post1", "128", 9, ", max_retry_cnt: 9"}, {"0.3.12.post1", "3abc", 3, ", max_retry_cnt: 3"},
	} {
		e, h, logs := rdmaEngineEnv(t, tc.version, engine.RDMADevice{Name: "mlx5_0"}, map[string]string{"MC_RETRY_CNT": tc.value})
		h.Arm(0, faults.RDMAPrimitive{Status: status(t, "remote_access")})
		if got := e.RDMATransfer(context.Background(), &stepClock{}, true, 0, 0, 4096, "p:1"); got != te.RDMAFailed {
			t.Fatalf("%s %s: %v", tc.version, tc.value, got)
		}
		last := fmt.Sprintf("retry_cnt: %d%s): remote access error", tc.tries-1, tc.max)
		if n := count(*logs, "Process failed for slice"); n != tc.tries || !strings.HasSuffix((*logs)[len(*logs)-1], last) {
			t.Errorf("%s MC_RETRY_CNT=%s: %d lines, want %d ending %q: %q", tc.version, tc.value, n, tc.tries, last, *logs)
		}
	}
}

// v0.3.12's handshake with a peer NIC off the local one's subnet
// (rdma_endpoint.cpp v0.3.12.post1:513-518, worker_pool.cpp :431-466,
// :714-790, :1301-1334): the peer's RTR fails after 1 s and its reason
// comes back, "Rejected handshake request by peer"; each of the 9 tries
// hand-shakes again. With two peer NICs the first is paused (30 s) and the
// tries go to the other; once it is back, the first is tried again.
func TestRDMARailsHandshakeRejected(t *testing.T) {
	p, err := mooncake.ProfileFor("0.3.12.post1")
	if err != nil {
		t.Fatal(err)
	}
	peerDevs := []engine.RDMADevice{{Name: "mlx5_9", Subnet: "10.0.2.0/24"}}
	e, clock, put, lp, plp := peeredEngine(t, p, func() []engine.RDMADevice { return peerDevs })
	if got := put(); got != te.RDMAFailed || clock.now != 9*time.Second {
		t.Fatalf("one peer NIC: %v at %v", got, clock.now)
	}
	var want []string
	for range 9 {
		want = append(want, "Rejected handshake request by peer peer:1@mlx5_9",
			"Worker: Cannot make connection for endpoint: peer:1@mlx5_9, no alternate peer RNIC is available; retrying without pausing peer rail")
	}
	rtr := "[Handshake] Failed to modify QP to RTR, check mtu, gid, peer lid, peer qp num: local=peer:1@mlx5_9, peer=" + e.ServerName() + "@mlx5_0, qp_index=0, "
	if strings.Join(*lp, "\n") != strings.Join(want, "\n") || len(*plp) != 9 || !strings.HasPrefix((*plp)[0], rtr) ||
		!strings.Contains((*plp)[0], ", local_gid=00:00:00:00:00:00:00:00:00:00:ff:ff:0a:00:02:01, local_gid_index=3, peer_gid=00:00:00:00:00:00:00:00:00:00:ff:ff:0a:00:01:01, peer_lid=0, path_mtu=5, port_num=1: Connection timed out") {
		t.Fatalf("one peer NIC: %q\n%q", *lp, *plp)
	}

	peerDevs = []engine.RDMADevice{{Name: "mlx5_8", Subnet: "10.0.1.0/24"}, {Name: "mlx5_9", Subnet: "10.0.2.0/24"}}
	// The context (index 0) meets the peer's NIC of index 0 at retry 0:
	// mlx5_8, on its subnet.
	clock.now = 0
	if got := put(); got != te.RDMADone || len(*lp) != 0 {
		t.Fatalf("two peer NICs: %v %q", got, *lp)
	}
	// Now index 0 is off the subnet: rejected, its rail paused; retry 1
	// selects index 0 again, paused, so the other rail, connected already.
	peerDevs[0], peerDevs[1] = peerDevs[1], peerDevs[0]
	if got := put(); got != te.RDMADone || clock.now != time.Second {
		t.Fatalf("paused rail: %v at %v %q", got, clock.now, *lp)
	}
	want = []string{"Rejected handshake request by peer peer:1@mlx5_9",
		"Worker: Cannot make connection for endpoint: peer:1@mlx5_9, pausing peer rail and retrying through an alternate peer RNIC",
		"Rail paused: peer=peer:1@mlx5_9 error_count=5 pause_ms=30000"}
	if strings.Join(*lp, "\n") != strings.Join(want, "\n") {
		t.Fatalf("paused rail: %q", *lp)
	}
}

// MC_CONN_PAUSE_TTL_MS (v0.3.12: rdma_context.cpp v0.3.12.post1:727-757,
// worker_pool.cpp :407-419): a deleted endpoint pauses connecting to its
// peer's server; meanwhile the slices fail each round without a try, so
// one failed completion uses up the 9 tries at once. Past the pause the
// peer is tried again.
func TestRDMARailsConnectionPause(t *testing.T) {
	e, h, logs := rdmaEngineEnv(t, "0.3.12.post1", engine.RDMADevice{Name: "mlx5_0"}, map[string]string{"MC_CONN_PAUSE_TTL_MS": "5000"})
	clock := &stepClock{}
	heal := h.Arm(0, faults.RDMAPrimitive{Status: status(t, "remote_access")})
	if got := e.RDMATransfer(context.Background(), clock, true, 0, 0, 4096, "p:1"); got != te.RDMAFailed || len(*logs) != 1 || !strings.HasSuffix((*logs)[0], "retry_cnt: 0, max_retry_cnt: 9): remote access error") {
		t.Fatalf("%v %q", got, *logs)
	}
	heal(clock.now)
	*logs = (*logs)[:0]
	clock.now += 4 * time.Second
	if got := e.RDMATransfer(context.Background(), clock, true, 0, 0, 4096, "p:1"); got != te.RDMAFailed || len(*logs) != 0 {
		t.Fatalf("paused: %v %q", got, *logs)
	}
	clock.now += time.Second
	if got := e.RDMATransfer(context.Background(), clock, true, 0, 0, 4096, "p:1"); got != te.RDMADone || len(*logs) != 0 {
		t.Fatalf("past the pause: %v %q", got, *logs)
	}
}

// v0.3.12's port flap (worker_pool.cpp v0.3.12.post1:986-1085): the port
// error makes the context inactive (no active device for the source
// buffer), the port's return schedules the recovery probe 30 s later, and
// only then is the context used again.
func TestRDMARailsPortFlap(t *testing.T) {
	e, h, logs := rdmaEngine(t, "0.3.12.post1")
	clock := &stepClock{now: time.Second}
	heal := h.Arm(clock.now, faults.RDMAPrimitive{Status: status(t, faults.ModePortDown), PortDown: true})
	put := func() te.RDMAOutcome {
		*logs = (*logs)[:0]
		return e.RDMATransfer(context.Background(), clock, true, 0, 0, 4096, "p:1")
	}
	if got := put(); got != te.RDMANoActiveDevice || strings.Join(*logs, "|") != "Worker: Received context async event port error for context mlx5_0|Worker: Context mlx5_0 is now inactive due to fatal event: 10" {
		t.Fatalf("%v %q", got, *logs)
	}
	clock.now = 4 * time.Second
	heal(clock.now)
	if got := put(); got != te.RDMANoActiveDevice || strings.Join(*logs, "|") != "Worker: Received context async event port active for context mlx5_0|Worker: Context mlx5_0 scheduled recovery probe after 30 seconds" {
		t.Fatalf("%v %q", got, *logs)
	}
	clock.now = 33 * time.Second
	if got := put(); got != te.RDMANoActiveDevice || len(*logs) != 0 {
		t.Fatalf("before the probe: %v %q", got, *logs)
	}
	clock.now = 34 * time.Second
	if got := put(); got != te.RDMADone || strings.Join(*logs, "|") != "Worker: received GID change event for mlx5_0, current GID is unchanged|Worker: Context mlx5_0 is now active after recovery delay" {
		t.Fatalf("after the probe: %v %q", got, *logs)
	}
}

// peeredEngine is an engine of profile p on mlx5_0 in 10.0.1.0/24 whose
// transfers put 4 KiB into "peer:1", a peer with the RNICs devs gives and
// a log of its own; each put starts both logs afresh.
func peeredEngine(t *testing.T, p mooncake.Profile, devs func() []engine.RDMADevice) (*te.Engine, *stepClock, func() te.RDMAOutcome, *[]string, *[]string) {
	t.Helper()
	var logs, peerLogs []string
	peer := func(endpoint string) (te.Peer, bool) {
		return te.Peer{RDMA: devs(), Log: mlog.Func(func(_, text string) { peerLogs = append(peerLogs, text) })}, endpoint == "peer:1"
	}
	e := te.New(te.Config{Profile: p, Host: te.Host{Name: "n", RDMA: []engine.RDMADevice{{Name: "mlx5_0", Subnet: "10.0.1.0/24"}}, RDMAFaults: &te.RDMAFaults{}, Peer: peer},
		Log: mlog.Func(func(_, text string) { logs = append(logs, text) })})
	dev := "mlx5_0"
	if err := e.InitStore(context.Background(), "localhost:12345", te.P2PHandshake, "rdma", &dev); err != nil {
		t.Fatal(err)
	}
	e.StartWorkers(0)
	clock := &stepClock{}
	put := func() te.RDMAOutcome {
		logs, peerLogs = nil, nil
		return e.RDMATransfer(context.Background(), clock, true, 0, 0, 4096, "peer:1")
	}
	return e, clock, put, &logs, &peerLogs
}

// railsFailing is a 0.3.12.post1 engine on mlx5_0 whose RNIC completes
// every work request with mode's status; put writes n bytes to "p:1"
// with the log started afresh.
func railsFailing(t *testing.T, mode string) (*stepClock, *[]string, func(n int64) te.RDMAOutcome) {
	t.Helper()
	e, h, logs := rdmaEngine(t, "0.3.12.post1")
	clock := &stepClock{}
	h.Arm(0, faults.RDMAPrimitive{Status: status(t, mode)})
	return clock, logs, func(n int64) te.RDMAOutcome {
		*logs = (*logs)[:0]
		return e.RDMATransfer(context.Background(), clock, true, 0x1000, 0x2000, n, "p:1")
	}
}
