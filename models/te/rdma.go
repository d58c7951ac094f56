package te

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// The RDMA data path, as far as failed work completions go: what the
// transfer engine's RdmaTransport::submitTransferTask and its per-context
// WorkerPool (performPostSend, performPollCq, monitorWorker) do with a
// transfer when the RNIC completes work requests in error
// (worker_pool.cpp, rdma_context.cpp, rdma_transport.cpp at v0.3.9 and
// v0.3.11.post1; Profile.RDMAWorkerPool). A healthy RNIC moves the data;
// the engine's DataPath does that.

// globalConfig() defaults (config.h, v0.3.8 … v0.3.11.post1).
const (
	rdmaSliceSize     = 65536 // slice_size
	rdmaFragmentLimit = 16384 // fragment_limit
	// rdmaErrorThreshold: failed_nr_polls above it, with no successful
	// completion ever on the context, marks the RNIC inactive.
	rdmaErrorThreshold = 32
	// rdmaMonitorPeriod: monitorWorker sets the context active again when
	// more than 1 s passed since its last reset, checked after each
	// epoll_wait of 100 ms: every 1.1 s from the pool's start.
	rdmaMonitorPeriod = 1100 * time.Millisecond
)

// RDMAFaults is a host's injected work-completion fault, shared by the
// transfer engines of every process on it; the engines' fault injectors
// arm and heal it (from another goroutine on the fake engine: hence the
// lock).
type RDMAFaults struct {
	mu     sync.Mutex
	status *faults.WCStatus
	after  int64 // work requests still to complete successfully
	// qpExhausted: the RNICs' queue-pair pool is used up, ibv_create_qp
	// fails with ENOMEM.
	qpExhausted bool
	// events are the port's async events so far (port_down faults), in
	// time order.
	events []portEvent
	// cqFails: ibv_create_cq fails with ENOMEM on these devices ("" =
	// every device), rdma-context faults.
	cqFails []string
	// resetRejects: these devices' drivers reject a redundant transition
	// to RESET ("" = every device), rdma-context reset_rejected faults.
	resetRejects []string
	// regMRFails: ibv_reg_mr fails with an errno on these devices ("" =
	// every device), rdma-context reg_mr faults.
	regMRFails []regMRFault
	// staleHandshake: every active handshake is overtaken by a stale
	// reply; destroyRace: the next transfer on an existing endpoint meets
	// its destruction (once per fault). rdma-endpoint faults.
	staleHandshake, destroyRace bool
}

// regMRFault is one rdma-context reg_mr fault: its device and errno.
type regMRFault struct {
	device      string
	errno       faults.Errno
	failingOnly bool
}

// portEvent is an RNIC async event: the port went down (IBV_EVENT_PORT_ERR)
// or came back (IBV_EVENT_PORT_ACTIVE) at Mooncake time at.
type portEvent struct {
	at   time.Duration
	down bool
}

// Arm makes the host's RNICs complete work requests with p's status
// after p.AfterWR successful ones from Mooncake time now; p.PortDown: the
// port went down (and comes back when healed); p.QPExhausted: no new
// queue pair can be created. The returned func heals it at the Mooncake
// time it is given.
func (h *RDMAFaults) Arm(now time.Duration, p faults.RDMAPrimitive) func(time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case p.CreateCQ:
		return h.addDevice(&h.cqFails, p.Device)
	case p.ResetRejected:
		return h.addDevice(&h.resetRejects, p.Device)
	case p.RegMR.Name != "":
		f := regMRFault{p.Device, p.RegMR, p.RegMRFailingOnly}
		h.regMRFails = append(h.regMRFails, f)
		return func(time.Duration) {
			h.mu.Lock()
			defer h.mu.Unlock()
			if i := slices.Index(h.regMRFails, f); i >= 0 {
				h.regMRFails = slices.Delete(h.regMRFails, i, i+1)
			}
		}
	case p.StaleHandshake:
		h.staleHandshake = true
		return func(time.Duration) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.staleHandshake = false
		}
	case p.DestroyRace:
		h.destroyRace = true
		return func(time.Duration) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.destroyRace = false
		}
	}
	if p.QPExhausted {
		h.qpExhausted = true
		return func(time.Duration) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.qpExhausted = false
		}
	}
	status, portDown := p.Status, p.PortDown
	h.status, h.after = &status, p.AfterWR
	if portDown {
		h.events = append(h.events, portEvent{at: now, down: true})
	}
	return func(at time.Duration) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.status = nil
		if portDown {
			h.events = append(h.events, portEvent{at: at})
		}
	}
}

// addDevice adds device to list and returns its heal (h.mu held).
func (h *RDMAFaults) addDevice(list *[]string, device string) func(time.Duration) {
	*list = append(*list, device)
	return func(time.Duration) {
		h.mu.Lock()
		defer h.mu.Unlock()
		if i := slices.Index(*list, device); i >= 0 {
			*list = slices.Delete(*list, i, i+1)
		}
	}
}

// Heal restores the RNICs (a world's ClearFaults; a downed port stays
// without its port-active event, as clearing does not replay events).
func (h *RDMAFaults) Heal() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.status, h.qpExhausted = nil, false
	h.cqFails, h.resetRejects, h.regMRFails, h.staleHandshake, h.destroyRace = nil, nil, nil, false, false
}

// createCQ is one ibv_create_cq on device: false when it fails (ENOMEM).
func (h *RDMAFaults) createCQ(device string) bool {
	return h == nil || !h.onDevice(&h.cqFails, device)
}

// regMR is why ibv_reg_mr on device fails (PLOG's errno text), or "",
// given why the world's own cause fails it ("" when it does not).
func (h *RDMAFaults) regMR(device, own string) string {
	if h == nil {
		return own
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, f := range h.regMRFails {
		if (f.device == "" || f.device == device) && (own != "" || !f.failingOnly) {
			return f.errno.PLOG()
		}
	}
	return own
}

// resetRejected: device's driver rejects a new QP's transition to RESET.
func (h *RDMAFaults) resetRejected(device string) bool {
	return h != nil && h.onDevice(&h.resetRejects, device)
}

// onDevice: list (one of h's) names device or every device ("").
func (h *RDMAFaults) onDevice(list *[]string, device string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.ContainsFunc(*list, func(d string) bool { return d == "" || d == device })
}

// stale reports whether the node's active handshakes are overtaken by
// stale replies.
func (h *RDMAFaults) stale() bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.staleHandshake
}

// takeDestroyRace reports whether this transfer meets its endpoint's
// destruction, and uses the fault up: the race happens once.
func (h *RDMAFaults) takeDestroyRace() bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	race := h.destroyRace
	h.destroyRace = false
	return race
}

// createQP is one ibv_create_qp: false when the pool is used up.
func (h *RDMAFaults) createQP() bool {
	if h == nil {
		return true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.qpExhausted
}

// complete is one executed work request's completion: ok, or the fault's
// status.
func (h *RDMAFaults) complete() (faults.WCStatus, bool) {
	if h == nil {
		return faults.WCStatus{}, true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.status == nil {
		return faults.WCStatus{}, true
	}
	if h.after > 0 {
		h.after--
		return faults.WCStatus{}, true
	}
	return *h.status, false
}

// eventsFrom are the port events from the i-th on.
func (h *RDMAFaults) eventsFrom(i int) []portEvent {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if i >= len(h.events) {
		return nil
	}
	return append([]portEvent(nil), h.events[i:]...)
}

// RDMAFaultSet is a world's RDMAFaults, one per node; the zero value is
// ready.
type RDMAFaultSet struct {
	mu sync.Mutex
	m  map[string]*RDMAFaults
}

// Node is node's RDMAFaults (made on first use).
func (s *RDMAFaultSet) Node(node string) *RDMAFaults {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]*RDMAFaults{}
	}
	h := s.m[node]
	if h == nil {
		h = &RDMAFaults{}
		s.m[node] = h
	}
	return h
}

// HealAll heals every node's RNICs (a world's ClearFaults).
func (s *RDMAFaultSet) HealAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range s.m {
		h.Heal()
	}
}

// RDMAUnsupported says why a world of nodes at profile cannot inject p
// ("" = it can): the node must exist and have an RNIC, and the release's
// worker pool must be modelled.
func RDMAUnsupported(p faults.RDMAPrimitive, nodes []engine.NodeSpec, profile mooncake.Profile) string {
	i := slices.IndexFunc(nodes, func(n engine.NodeSpec) bool { return n.Name == p.Node })
	switch {
	case i < 0:
		return fmt.Sprintf("%s: no node %s in this topology", p.Fault, p.Node)
	case len(nodes[i].RDMA) == 0:
		return fmt.Sprintf("%s: node %s has no RNIC (nic.rdma)", p.Fault, p.Node)
	case p.Device != "" && !slices.ContainsFunc(nodes[i].RDMA, func(d engine.RDMADevice) bool { return d.Name == p.Device }):
		return fmt.Sprintf("%s: node %s has no RNIC %s (nic.rdma)", p.Fault, p.Node, p.Device)
	case p.AtSetup(), p.RegMR.Name != "":
		// No work request: the worker pool is not involved.
		return ""
	case profile.RDMAWorkerPool == mooncake.RDMAPoolNone:
		return fmt.Sprintf("%s: the RDMA worker pool of Mooncake %s is not modelled (v0.3.8 … v0.3.12.post1 are)", p.Fault, profile.Version.String())
	case profile.RDMAWorkerPool == mooncake.RDMAPoolRails && (p.StaleHandshake || p.DestroyRace):
		return fmt.Sprintf("%s: the RDMA worker pool of Mooncake %s (rail failover) is modelled for work-completion errors, a port flap and a used-up QP pool only", p.Fault, profile.Version.String())
	case profile.RDMAWorkerPool == mooncake.RDMAPoolRails && len(nodes[i].RDMA) > 1:
		return fmt.Sprintf("%s: the RDMA worker pool of Mooncake %s (rail failover) is modelled for a node with one RNIC only (%s has %d)", p.Fault, profile.Version.String(), p.Node, len(nodes[i].RDMA))
	}
	return ""
}

// localWCFailure is WorkerPool::isLocalWcFailure (worker_pool.cpp
// v0.3.12.post1:1343-1368): the statuses v0.3.12's pool blames on the
// local RNIC (IBV_WC_GENERAL_ERR deliberately not; the RDD/EEC ones are
// enumerators, not macros, so their #ifdef cases are compiled out).
func localWCFailure(st faults.WCStatus) bool {
	switch st.Enum {
	case "IBV_WC_LOC_LEN_ERR", "IBV_WC_LOC_QP_OP_ERR", "IBV_WC_LOC_PROT_ERR", "IBV_WC_MW_BIND_ERR", "IBV_WC_LOC_ACCESS_ERR":
		return true
	}
	return false
}

// rdmaContext is one RdmaContext's WorkerPool state and its endpoints
// by peer NIC path.
type rdmaContext struct {
	dev                       engine.RDMADevice
	failedPolls, successPolls int64
	inactive                  bool
	inactiveAt                time.Duration
	endpoints                 map[string]*rdmaEndpoint
	// rails: v0.3.12's rail states by peer NIC path, connPaused when the
	// peers' servers may be connected to again (rails.go).
	rails      map[string]*railState
	connPaused map[string]time.Duration
	// recoverAt: v0.3.12's recovery probe after a port came back (0: none).
	recoverAt time.Duration
}

// RDMAOutcome is what became of an RDMA transfer.
type RDMAOutcome int

const (
	// RDMADone: every slice completed (the data path moves the data).
	RDMADone RDMAOutcome = iota
	// RDMASubmitFailed: submitTransferTask refused it (Status
	// InvalidArgument: the local context is inactive).
	RDMASubmitFailed
	// RDMAFailed: a slice failed for good; the task is FAILED.
	RDMAFailed
	// RDMACrashed: the process died (SIGSEGV) destroying an endpoint whose
	// queue pair was never created (Profile.RDMANullQPDestroy).
	RDMACrashed
	// RDMAPostSendCrashed: the process died (SIGSEGV) in ibv_post_send on
	// queue pairs another worker destroyed (Profile.RDMAEndpointDestroyRace).
	RDMAPostSendCrashed
	// RDMANoActiveDevice: submitTransferTask found no active device for
	// the source buffer (Status AddressNotRegistered, "Memory region not
	// registered by any active device(s)"; v0.3.12's pool, rdmaRails).
	RDMANoActiveDevice
)

// Died is the death an outcome is (SIGSEGV in the verbs call), else nil.
func (o RDMAOutcome) Died() error {
	switch o {
	case RDMACrashed:
		return &engine.ProcessDied{Signal: "SIGSEGV", Reason: "Segmentation fault in ibv_destroy_qp: an RDMA endpoint whose queue pair was never created was destroyed"}
	case RDMAPostSendCrashed:
		return &engine.ProcessDied{Signal: "SIGSEGV", Reason: "Segmentation fault in ibv_post_send: a worker posted on queue pairs another worker's endpoint deletion destroyed"}
	}
	return nil
}

// retryExceededCost is how long a work request to a peer that never
// acknowledges takes to complete in IBV_WC_RETRY_EXC_ERR: the QP's local
// ACK timeout 4.096 µs·2^14 (rdma_endpoint.cpp TIMEOUT = 14) for the
// first send and each of its RETRY_CNT = 7 retries, the least the IB
// spec allows (an RNIC may wait longer).
const retryExceededCost = 8 * 4096 * time.Nanosecond * (1 << 14)

// StartWorkers records when the RDMA contexts' worker pools started
// (installTransport, during setup): monitorWorker's clock.
func (e *Engine) StartWorkers(now time.Duration) { e.workersAt = now }

// RDMATransfer runs one transfer request (length bytes from src to dst
// in the segment of peer, a TE endpoint; write = WRITE, else READ)
// through the RDMA context its source buffer selects (selectContext),
// to the peer NICs its slices select (peerNICAt). Work requests fail as
// the host's RDMAFaults say, taking the time their status costs on clock;
// a handshake between NICs whose RoCE subnets differ fails (connect).
//
// The model has no worker threads: a port's async events are handled at
// the engine's next transfer (their log lines are printed then, before
// its own), and monitorWorker's resets are read off the clock.
func (e *Engine) RDMATransfer(ctx context.Context, clock engine.Clock, write bool, src, dst uint64, length int64, peer string) RDMAOutcome {
	pool := e.cfg.Profile.RDMAWorkerPool
	if len(e.nics) == 0 || pool == mooncake.RDMAPoolNone {
		return RDMADone
	}
	if e.rdma == nil {
		e.rdma = make([]rdmaContext, len(e.nics))
		for i, n := range e.nics {
			e.rdma[i].dev = n.dev
		}
	}
	ci := e.selectContext()
	cx := &e.rdma[ci]
	dev := cx.dev.Name
	e.portEvents(clock.Now(), cx, dev)
	active := func() bool {
		if !cx.inactive {
			return true
		}
		// monitorWorker's resets at workersAt + k·1.1 s.
		now := clock.Now()
		last := e.workersAt + (now-e.workersAt)/rdmaMonitorPeriod*rdmaMonitorPeriod
		if last > cx.inactiveAt {
			cx.inactive = false
		}
		return !cx.inactive
	}
	if pool != mooncake.RDMAPoolRails && !active() {
		// submitTransferTask: the source buffer's device is inactive.
		e.logf(mlog.Error, "Device %d is not active", ci)
		return RDMASubmitFailed
	}
	var peerDevs []engine.RDMADevice
	if e.cfg.Host.Peer != nil && peer != e.serverName {
		if pr, ok := e.cfg.Host.Peer(peer); ok && len(pr.RDMA) > 0 {
			peerDevs = pr.RDMA
			defer func() { e.peerLog = nil }()
			e.peerLog = pr.Log
		}
	}
	if pool == mooncake.RDMAPoolRails {
		return e.rdmaRails(ctx, clock, cx, ci, write, src, dst, length, peer, peerDevs)
	}
	opcode := 0 // Transport::TransferRequest::READ
	if write {
		opcode = 1
	}
	pending := rdmaSlices(length)
	maxRetry := e.rdmaMaxRetry()
	peerNIC, reachable := e.peerNICAt(peer, peerDevs, ci, 0)
	if cx.hasEndpoint(peerNIC) && e.cfg.Host.RDMAFaults.takeDestroyRace() {
		return e.destroyRace(cx, peerNIC)
	}
	if ep := cx.endpoints[peerNIC]; ep != nil && !ep.stale && !ep.inactive && e.peerLog != nil && e.cfg.Host.RDMAFaults.stale() {
		// Under the fan-out a waiter's timeout resets a connected endpoint
		// too (resetConnection("wait existing handshake timeout")): it is
		// set up again, and that handshake is overtaken as well.
		cx.endpoints[peerNIC] = e.staleHandshake(cx, peerNIC)
	}
	failed := false
	// retry: the slice goes round again, or fails once it used up
	// max_retry_cnt (performPollCq, redispatch).
	retry := func(s *rdmaSlice, next []*rdmaSlice) []*rdmaSlice {
		s.retry++
		if s.retry >= maxRetry {
			failed = true
			return next
		}
		return append(next, s)
	}
	countFailure := func() {
		cx.failedPolls++
		if active() && cx.failedPolls > rdmaErrorThreshold && cx.successPolls == 0 {
			e.logf(mlog.Warning, "Too many errors found in local RNIC %s@%s, mark it inactive", e.serverName, dev)
			cx.inactive, cx.inactiveAt = true, clock.Now()
		}
	}
	// Each round is one performPostSend of the slices still pending, all
	// to one peer NIC: one ibv_post_send chain on one QP, then the polls.
	for len(pending) > 0 {
		var next []*rdmaSlice
		e.portEvents(clock.Now(), cx, dev)
		// redispatch: the round's slices go to the peer NIC their retry
		// count selects (they failed together, so share it).
		peerNIC, reachable = e.peerNICAt(peer, peerDevs, ci, pending[0].retry)
		if !active() {
			// RdmaContext::endpoint refuses before it looks the endpoint up
			// or makes one (rdma_context.cpp v0.3.9:338-342, the first call
			// of performPostSend's round, worker_pool.cpp v0.3.9:226-232;
			// v0.3.11.post1 the same): the slices are redispatched.
			e.logf(mlog.Error, "Context is not active: %s", dev)
			for _, s := range pending {
				next = retry(s, next)
			}
			pending = next
			continue
		}
		if !cx.hasEndpoint(peerNIC) && (cx.dev.NoRC || !e.cfg.Host.RDMAFaults.createQP()) {
			// RdmaContext::endpoint → insertEndpoint → construct: the
			// first ibv_create_qp fails (PLOG: strerror and errno) - the
			// pool used up (ENOMEM), or an RC QP on a device that has none
			// (EFA: EOPNOTSUPP); the endpoint is dropped, so the next
			// round tries again.
			errno := faults.MustErrno("ENOMEM")
			if cx.dev.NoRC {
				errno = faults.MustErrno("EOPNOTSUPP")
			}
			e.logf(mlog.Error, "Failed to create QP: %s", errno.PLOG())
			if e.cfg.Profile.RDMANullQPDestroy {
				return RDMACrashed
			}
			for _, s := range pending {
				next = retry(s, next)
			}
			pending = next
			continue
		}
		if !e.connect(ctx, clock, cx, peerNIC, reachable, active) {
			for _, s := range pending {
				next = retry(s, next)
			}
			pending = next
			continue
		}
		errored := false
		for _, s := range pending {
			if errored {
				// The QP is in error: the rest of its chain is flushed
				// (IBV_WC_WR_FLUSH_ERR, not logged without MC_TRACE).
				if pool == mooncake.RDMAPoolFlushFails {
					failed = true
					continue
				}
				countFailure()
				next = retry(s, next)
				continue
			}
			st, ok := e.cfg.Host.RDMAFaults.complete()
			if ep := cx.endpoints[peerNIC]; ep != nil && ep.stale {
				// The peer's QPs were set up for another generation of
				// this endpoint's: nothing acknowledges the request.
				st, ok = retryExceeded, false
			}
			if ok {
				cx.successPolls++
				continue
			}
			errored = true
			if completionWait(ctx, clock, st) != nil {
				return RDMAFailed
			}
			e.logf(mlog.Error, "Worker: Process failed for slice (opcode: %d, source_addr: %#x, length: %d, dest_addr: %#x, local_nic: %s, peer_nic: %s, dest_rkey: %d, retry_cnt: %d): %s",
				opcode, src+uint64(s.off), s.n, dst+uint64(s.off), dev, peerNIC, rdmaRKey(dst), s.retry, st.Text)
			countFailure()
			// performPollCq deletes the endpoint of every failed
			// completion (worker_pool.cpp v0.3.10.post2:314,
			// v0.3.11.post1:324): the next round sets up a new one.
			delete(cx.endpoints, peerNIC)
			next = retry(s, next)
		}
		pending = next
	}
	if failed {
		return RDMAFailed
	}
	return RDMADone
}

// rdmaMaxRetry is a slice's max_retry_cnt: globalConfig().retry_cnt,
// MC_RETRY_CNT in 1..127, else 9 (config.cpp v0.3.9:184-192,
// v0.3.12.post1:294-302; rdma_transport.cpp v0.3.9:455,492,
// v0.3.12.post1:578,616).
func (e *Engine) rdmaMaxRetry() int {
	v, set := e.env("MC_RETRY_CNT")
	if !set {
		return 9
	}
	return int(mooncake.ParseKnob(e.cfg.Profile.Version, "MC_RETRY_CNT", v, set).Int)
}

// completionWait is how long a failed completion takes to arrive: a
// retry-exceeded one only after the HCA's retries (retryExceededCost),
// the others at once.
func completionWait(ctx context.Context, clock engine.Clock, st faults.WCStatus) error {
	if st.Enum != "IBV_WC_RETRY_EXC_ERR" {
		return nil
	}
	return clock.Sleep(ctx, retryExceededCost)
}

// rdmaContextFailureThreshold: v0.3.12's markContextFailure marks the
// context inactive at this many consecutive failing passes
// (kContextFailureThreshold, worker_pool.h v0.3.12.post1:174).
const rdmaContextFailureThreshold = 32

// rdmaSlice is one slice of a transfer and its retries so far.
type rdmaSlice struct {
	off, n int64
	retry  int
	// nic: the peer NIC path it is queued for (v0.3.12's pool).
	nic string
}

// rdmaSlices cuts a transfer of length bytes into slices of
// rdmaSliceSize, the last taking a remainder up to rdmaFragmentLimit.
func rdmaSlices(length int64) []*rdmaSlice {
	var out []*rdmaSlice
	for off := int64(0); off < length; off += rdmaSliceSize {
		n := int64(rdmaSliceSize)
		last := length-off <= rdmaSliceSize+rdmaFragmentLimit
		if last {
			n = length - off
		}
		out = append(out, &rdmaSlice{off: off, n: n})
		if last {
			break
		}
	}
	return out
}

// rdmaEndpoint is an RdmaEndPoint of the first context: inactive since
// inactiveAt after a failed connection; stale: CONNECTED with the reply
// of an overtaken handshake (staleHandshake).
type rdmaEndpoint struct {
	inactive   bool
	inactiveAt time.Duration
	stale      bool
}

// retryExceeded is the status of a work request nothing acknowledges.
var retryExceeded, _ = faults.WCStatusOf("retry_exceeded")

// staleHandshake is setupConnectionsByActive overtaken (Mooncake#3584,
// present at every tag from v0.3.10.post1, whose endpoint has the
// CONNECTING state and the waiters' timeout reset, to v0.3.12.post1):
// while its RPC is in flight without the endpoint lock, the endpoint is
// set up again and the peer, CONNECTED by the first request, receives
// other QP numbers: setupConnectionsByPassive re-establishes
// ("Re-establish connection: " + toString(), rdma_endpoint.cpp
// v0.3.10.post2:325, v0.3.11.post1:442) and resetConnection logs its
// success (:433, :562). The stale reply then configures the local QPs,
// so the endpoint is CONNECTED while the peer's QPs answer the other
// generation. The peer's lines go to the peer's log.
func (e *Engine) staleHandshake(cx *rdmaContext, peerNIC string) *rdmaEndpoint {
	local := e.serverName + "@" + cx.dev.Name
	e.peerLog.Log(mlog.Warning, fmt.Sprintf("Re-establish connection: EndPoint: local %s, peer %s", peerNIC, local))
	e.peerLog.Log(mlog.Info, "Successfully reset the endpoint (triggered by: re-establishing connection (passive)).")
	return &rdmaEndpoint{stale: true}
}

// destroyRace is a transfer on the endpoint to peerNIC while another
// worker deletes it (Mooncake PR 1903). Up to v0.3.10.post2 the endpoint
// store drops it with its QPs unlocked: deconstruct finds this transfer's
// work requests outstanding (rdma_endpoint.cpp v0.3.10.post2:119-132,
// "Outstanding work requests found, CQ will not be generated"), destroys
// the QPs, and the worker still posting calls ibv_post_send on them
// (:513): SIGSEGV. From v0.3.11 beginDestroy moves the QPs to ERR: the
// in-flight work requests complete in IBV_WC_WR_FLUSH_ERR, which fail
// their slices at once without a line (worker_pool.cpp v0.3.11.post1:
// 290-301), submitPostSend refuses the destroying endpoint, and
// finishDestroy frees the drained QPs without the warning; the next
// transfer sets up a new endpoint.
func (e *Engine) destroyRace(cx *rdmaContext, peerNIC string) RDMAOutcome {
	delete(cx.endpoints, peerNIC)
	if e.cfg.Profile.RDMAEndpointDestroyRace {
		e.logf(mlog.Warning, "Outstanding work requests found, CQ will not be generated")
		return RDMAPostSendCrashed
	}
	return RDMAFailed
}

// rtrResolveTimeout is how long the passive side's INIT→RTR
// ibv_modify_qp takes to fail when the peer GID is off its GID's subnet:
// on RoCE the kernel resolves the destination MAC at RTR (Linux
// ib_resolve_eth_dmac → rdma_addr_find_l2_eth_by_grh, a 1000 ms
// rdma_resolve_ip) and gives up with ETIMEDOUT (Mooncake#204: the
// failures 1.1 s apart).
const rtrResolveTimeout = time.Second

// hasEndpoint: the context's endpoint store holds one for peerNIC.
func (cx *rdmaContext) hasEndpoint(peerNIC string) bool {
	_, ok := cx.endpoints[peerNIC]
	return ok
}

// selectContext is submitTransferTask's selectDevice for a request's
// source buffer (rdma_transport.cpp v0.3.9:467-473, v0.3.11.post1 the
// same): at retry 0 Topology::selectDevice draws one of the buffer
// location's preferred HCAs with SimpleRandom (topology.cpp
// v0.3.9:457-472). The model takes them in turn (that function's
// use_round_robin_ branch), so that a run is the same every time; every
// slice of the request stays on that context (redispatch changes only
// the peer NIC).
func (e *Engine) selectContext() int {
	i := e.rdmaNext % len(e.nics)
	e.rdmaNext++
	return i
}

// peerNICAt is the peer NIC path a slice with retry count retry goes to
// from local context ci, and whether the two NICs reach each other (the
// same RoCE subnet). WorkerPool::submitPostSend and redispatch
// (worker_pool.cpp v0.3.9:111-148, :357-380) run the peer segment's
// Topology::selectDevice: at retry 0 a random preferred HCA (modelled as
// the local context's index, so that NICs of one rail pair up), then
// the (retry-1)-th of its HCAs in turn (topology.cpp v0.3.9:473-481). A
// loopback or unknown peer: the local NIC itself.
func (e *Engine) peerNICAt(peer string, devs []engine.RDMADevice, ci, retry int) (string, bool) {
	if len(devs) == 0 {
		return peer + "@" + e.nics[ci].dev.Name, true
	}
	i := ci % len(devs)
	if retry > 0 {
		i = (retry - 1) % len(devs)
	}
	return peer + "@" + devs[i].Name, e.nics[ci].dev.Subnet == devs[i].Subnet
}

// connect is performPostSend's endpoint check for peerNIC (worker_pool.cpp
// v0.3.9:230-258, v0.3.11.post1:229-258): false when the round's slices
// fail (each retry_cnt+1). An endpoint inactive for more than 1 s is
// deleted (its slices still fail this round) and the next round makes a
// new one; an unconnected one runs setupConnectionsByActive, whose
// handshake the peer answers after its own doSetupConnection: off-subnet
// (reachable false) its RTR fails, its handshake callback returns the
// error and the daemon sends back an empty reply (transfer_metadata.cpp
// v0.3.9:793-806, transfer_metadata_plugin.cpp v0.3.9:763-778), which
// the active side finds inconsistent (rdma_endpoint.cpp v0.3.9:155-164).
func (e *Engine) connect(ctx context.Context, clock engine.Clock, cx *rdmaContext, peerNIC string, reachable bool, active func() bool) bool {
	if cx.endpoints == nil {
		cx.endpoints = map[string]*rdmaEndpoint{}
	}
	ep := cx.endpoints[peerNIC]
	if ep != nil && ep.inactive {
		// inactiveTime() > 1.0: the model's rounds take no time, so the
		// next transfer (a put's retry 1 s later, plus its own overhead on
		// real) is the first to see it past 1 s.
		if clock.Now()-ep.inactiveAt >= time.Second {
			delete(cx.endpoints, peerNIC)
		}
		return false
	}
	if ep == nil && reachable && e.cfg.Host.RDMAFaults.resetRejected(cx.dev.Name) {
		// doSetupConnection's "Any state -> RESET" on the new QP (the
		// loopback's, or the active side's once the peer accepted): the
		// driver rejects the redundant transition (rdma_endpoint.cpp
		// v0.3.9:363-371, v0.3.11.post1:755-765: PLOG, errno EINVAL).
		e.logf(mlog.Error, "[Handshake] Failed to modify QP to RESET: Invalid argument [22]")
		e.connectionFailed(clock, cx, peerNIC, active)
		return false
	}
	if ep == nil && reachable && e.peerLog != nil && e.cfg.Host.RDMAFaults.stale() {
		// A remote peer's handshake (a loopback endpoint sets itself up
		// without an RPC).
		cx.endpoints[peerNIC] = e.staleHandshake(cx, peerNIC)
		return true
	}
	if ep != nil || reachable {
		if ep == nil {
			cx.endpoints[peerNIC] = &rdmaEndpoint{}
		}
		return true
	}
	if err := clock.Sleep(ctx, rtrResolveTimeout); err != nil {
		return false
	}
	if e.peerLog != nil {
		e.peerLog.Log(mlog.Error, "[Handshake] Failed to modify QP to RTR, check mtu, gid, peer lid, peer qp num: Connection timed out [110]")
	}
	// The peer's callback failed, so its daemon answers the JSON null (up
	// to 0.3.11.post1 it encodes no reply_msg): sendHandshake decodes an
	// empty descriptor and the active side reports the paths' mismatch.
	e.logf(mlog.Error, "Invalid argument: received packet mismatch, local.local_nic_path: %s@%s, local.peer_nic_path: %s, peer.local_nic_path: , peer.peer_nic_path: ", e.serverName, cx.dev.Name, peerNIC)
	e.connectionFailed(clock, cx, peerNIC, active)
	return false
}

// connectionFailed is performPostSend's failed setupConnectionsByActive
// (worker_pool.cpp v0.3.9:242-256): the endpoint is inactive, and the
// context too after more than 32 such failures with no success.
func (e *Engine) connectionFailed(clock engine.Clock, cx *rdmaContext, peerNIC string, active func() bool) {
	e.logf(mlog.Error, "Worker: Cannot make connection for endpoint: %s, mark it inactive", peerNIC)
	cx.endpoints[peerNIC] = &rdmaEndpoint{inactive: true, inactiveAt: clock.Now()}
	cx.failedPolls++
	if active() && cx.failedPolls > rdmaErrorThreshold && cx.successPolls == 0 {
		e.logf(mlog.Warning, "Failed to establish peer endpoints in local RNIC %s@%s, mark it inactive", e.serverName, cx.dev.Name)
		cx.inactive, cx.inactiveAt = true, clock.Now()
	}
}

// portEvents is doProcessContextEvents for the port events this engine
// has not handled yet (worker_pool.cpp v0.3.9:415-441): a port error
// makes the context inactive from the event's time, a port active
// makes it active.
func (e *Engine) portEvents(now time.Duration, cx *rdmaContext, dev string) {
	if e.cfg.Profile.RDMAWorkerPool == mooncake.RDMAPoolRails {
		e.railsPortEvents(now, cx, dev)
		return
	}
	for _, ev := range e.cfg.Host.RDMAFaults.eventsFrom(e.portSeen) {
		e.portSeen++
		if ev.down {
			e.logf(mlog.Warning, "Worker: Received context async event port error for context %s", dev)
			cx.inactive, cx.inactiveAt = true, ev.at
			e.logf(mlog.Info, "Worker: Context %s is now inactive", dev)
			continue
		}
		e.logf(mlog.Warning, "Worker: Received context async event port active for context %s", dev)
		cx.inactive = false
		e.logf(mlog.Info, "Worker: Context %s is now active", dev)
	}
}

// rdmaRKey is the model's stand-in for the peer buffer's rkey (real:
// the MR's key, a number the driver chose).
func rdmaRKey(dst uint64) uint32 { return uint32(dst>>12)&0xfffff | 0x200000 }
