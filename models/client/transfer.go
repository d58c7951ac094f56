package client

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// transferStatusFailed is TransferStatusEnum::FAILED (transfer_engine.h).
const transferStatusFailed = 6

// transferBatchBase numbers the sim's transfer batches in log lines; real
// prints a heap address (batch_id_), which differs per run anyway.
const transferBatchBase = 94528297200000

// tcpOnly is TransferEngine::isTcpOnly: TCP is the only transport.
func (c *RealClient) tcpOnly() bool {
	return len(c.te.Transports()) == 1 && c.te.SegmentProtocol() == "tcp"
}

// logMemcpyChoice is what TransferSubmitter's constructor says about
// MC_STORE_MEMCPY (transfer_task.cpp): the auto-detection from
// v0.3.10.post2 (real 0.3.11.post1 and 0.3.13.post1: "... TCP-only
// environment, memcpy enabled"), a value it does not know from v0.3.4.
func (c *RealClient) logMemcpyChoice() {
	m := c.p.StoreMemcpy
	if m == mooncake.MemcpyNever || m == mooncake.MemcpyLocal {
		return
	}
	v, set := c.d.Env["MC_STORE_MEMCPY"]
	switch {
	case !set && m == mooncake.MemcpyTCPOnlyDefault && c.tcpOnly():
		c.logf(mlog.Info, "MC_STORE_MEMCPY not set, auto-detected: TCP-only environment, memcpy enabled")
	case !set && m == mooncake.MemcpyTCPOnlyDefault:
		c.logf(mlog.Info, "MC_STORE_MEMCPY not set, auto-detected: non-TCP transport available, memcpy disabled")
	case set:
		// real 0.3.10.post1 … 0.3.14: "Invalid value for MC_STORE_MEMCPY:
		// disable, defaulting to enabled" (the knob table's line).
		if pv := mooncake.ParseKnob(c.p.Version, "MC_STORE_MEMCPY", v, true); pv.Log != "" {
			c.logf(pv.Level, "%s", pv.Log)
		}
	}
}

// localMemcpy is TransferSubmitter's strategy choice for replica r: a copy
// inside the process, no transfer engine (see mooncake.StoreMemcpy). The
// replica's transport endpoint must be this process's: its TE endpoint
// or its local_hostname (isSameProcessEndpoint, transfer_task.cpp
// v0.3.11.post1:849-878) - a segment of the same name in another process
// (two processes with local_hostname "[::1]") is not (real 0.3.11.post1:
// the peer's handshake). Where isLocalTransfer compares IPs only, any
// endpoint of this host passes (memcpyCrossProcess).
func (c *RealClient) localMemcpy(r master.Replica) bool {
	if !isLocalTransfer(c.p.LocalTransferIPOnly, r.TEEndpoint, c.te.ServerName(), c.hostname) {
		return false
	}
	v, set := c.d.Env["MC_STORE_MEMCPY"]
	return c.p.StoreMemcpy.LocalMemcpy(v, set, c.tcpOnly())
}

// transferMetadata is what the transfer engine reads from the metadata
// service before a byte of replica r moves: openSegment's descriptor of a
// remote segment (te.OpenSegment), then TcpTransport::startTransfer's
// getRpcMetaEntry of the target segment (te.RPCMetaEntry). A failure marks
// the slice failed, so the transfer fails (TRANSFER_FAIL). RDMA's
// handshake reads rpc_meta too (sendHandshake); it is not modelled.
func (c *RealClient) transferMetadata(ctx context.Context, r master.Replica) bool {
	if c.localMemcpy(r) {
		return true
	}
	if c.te.NoLocalSegmentDesc() {
		// No transport, no local descriptor (real 0.3.9 … 0.3.11.post1
		// with MC_USE_TENT set on a wheel without TENT), whatever the
		// target's protocol: the P2P handshake encodes it first; with a
		// metadata service this process never published its own segment,
		// so opening it reads a 404 (te.OpenSegment).
		if c.te.Handshake() {
			c.logf(mlog.Error, "Local segment descriptor not found")
		}
		if c.te.Handshake() || !c.te.OpenSegment(ctx, r.TEEndpoint) {
			c.logf(mlog.Error, "Failed to open segment for endpoint='%s'", r.TEEndpoint)
			c.logf(mlog.Error, "Failed to submit transfer operation")
			return false
		}
	}
	if r.TEProtocol != "tcp" {
		return true
	}
	if c.te.Handshake() {
		return c.handshakeResolves(r) && c.handshakeConnects(r)
	}
	if !c.te.OpenSegment(ctx, r.TEEndpoint) {
		// openSegment failed: the submit stops before a batch exists
		// (transfer_task.cpp; real 0.3.9 and 0.3.13.post1).
		c.logf(mlog.Error, "Failed to open segment for endpoint='%s'", r.TEEndpoint)
		c.logf(mlog.Error, "Failed to submit transfer operation")
		return false
	}
	m, ok := c.te.RPCMetaEntry(ctx, r.TEEndpoint)
	if ok && c.connectable(r, m) {
		return true
	}
	if !ok {
		c.logf(mlog.Error, "TcpTransport::startTransfer failed to get RPC meta entry for segment name: %s", r.TEEndpoint)
	}
	c.transferTaskFailed()
	return false
}

// handshakeResolves is SocketHandShakePlugin::send's getaddrinfo of the
// peer's endpoint host when openSegment hands the P2P handshake a segment
// (own segments too, when the store does not memcpy). Its hints ask for
// AF_INET unless MC_USE_IPV6 is set (getenv presence; ai_family at
// v0.3.7.post2 … v0.3.14 transfer_metadata_plugin.cpp, e.g. v0.3.10.post1:973),
// so an IPv6 endpoint ("::1:15875" from local_hostname "[::1]") does not
// resolve: real 0.3.7.post2 … 0.3.10.post1, every put -800; with
// MC_USE_IPV6=1 they pass (docs/REAL-FINDINGS.md, IPv6).
func (c *RealClient) handshakeResolves(r master.Replica) bool {
	h, port := r.TEEndpoint, ""
	if i := strings.LastIndex(h, ":"); i >= 0 {
		h, port = h[:i], h[i+1:]
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	if _, v6 := c.d.Env["MC_USE_IPV6"]; v6 || !strings.Contains(h, ":") || !te.Resolvable(h) {
		return true
	}
	c.logf(mlog.Error, "SocketHandShakePlugin: failed to get IP address of peer server %s:%s, check DNS and /etc/hosts, or use IPv4 address instead: Success [0]", h, port)
	c.logf(mlog.Error, "Failed to open segment for endpoint='%s'", r.TEEndpoint)
	c.logf(mlog.Error, "Failed to submit transfer operation")
	return false
}

// handshakeConnects is SocketHandShakePlugin::send's connect() to the
// segment's name. A peer whose engine listens elsewhere (a metadata
// service's new RPC mapping) refuses it at every transfer: the segment never
// opens (real 0.3.13.post1, 2026-12-03: a P2P SGLang store beside a
// mooncake_client on HTTP metadata — every put the master placed in the
// client's segment -800, these three lines).
func (c *RealClient) handshakeConnects(r master.Replica) bool {
	if c.d.Host.Peer == nil {
		return true
	}
	if p, ok := c.d.Host.Peer(r.TEEndpoint); !ok || !p.NoNameListener {
		return true
	}
	c.logf(mlog.Error, "SocketHandShakePlugin: connect()%s: Connection refused [111]", te.ConnectAddr(r.TEEndpoint))
	c.logf(mlog.Error, "Failed to open segment for endpoint='%s'", r.TEEndpoint)
	c.logf(mlog.Error, "Failed to submit transfer operation")
	return false
}

// transferRefusedLog is what TcpTransport logs when its connect to the
// peer's data port fails with text (Connection refused: its process
// stopped; Cannot assign requested address: no local port left), per
// release - real runs of io/peer-not-listening, 2026-12-01: 0.3.8.post1
// and 0.3.9 the ASIO exception of startTransfer; 0.3.10.post1 …
// 0.3.12.post1 getConnection's two lines; 0.3.13.post1 and 0.3.14 the TCP
// lane's. Addresses and numbers are the model's (the data port is the
// endpoint's).
func (c *RealClient) transferRefusedLog(endpoint, text string) {
	c.transferDialLog(endpoint, "connect", text)
}

// transferDialLog is transferRefusedLog for either step of the dial: op is
// asio's name of the failed call ("resolve": the peer's rpc_meta host is
// no name this host resolves; "connect"), which asio's system_error puts
// before its message (startTransfer's catch, tcp_transport.cpp v0.3.9:542;
// getConnection's, v0.3.12.post1:1099) and the TCP lane leaves out (its
// handleLaneResolved and handleLaneConnected pass the bare error_code
// message, tcp_transport_lane_impl.h 3b5a594 :790, :938).
func (c *RealClient) transferDialLog(endpoint, op, text string) {
	switch c.p.TCPRefusedLog {
	case "asio":
		c.logf(mlog.Error, "TcpTransport::startTransfer encountered an ASIO exception. Slice details - source_addr: 0x0, length: 0, opcode: 1, target_id: 1. Exception: %s: %s", op, text)
	case "getconnection":
		c.logf(mlog.Error, "TcpTransport::getConnection failed to create connection to %s. Error: %s: %s", endpoint, op, text)
		c.logf(mlog.Error, "TcpTransport::startTransfer failed to get connection to %s", endpoint)
	default:
		c.logf(mlog.Error, "TCP lane connection to %s failed: %s (attempt failure 1)", endpoint, text)
	}
}

// connectable is TcpTransport::getConnection's resolve of the rpc_meta
// entry's host. Real publishes an address of the host's own interfaces
// (findLocalIpAddresses), the sim its logical host name, so only a
// published host that is not the endpoint's own name came from
// MC_TCP_BIND_ADDRESS and can fail to resolve (sim,real seed 30005, real
// 0.3.10.post1 with MC_TCP_BIND_ADDRESS=not-an-ip: setup 0, every put -800;
// 0.3.7.post2 with ::1, seed 30141: the same, Profile.TCPDualStack). The
// endpoint's own host is split as the engine split it for its rpc_meta: a
// port-less "[::1]" local_hostname is its own name, which real publishes
// as an interface's IPv4 address (sim,real seed 30400, 0.3.7.post2: puts 0).
func (c *RealClient) connectable(r master.Replica, m te.RPCMeta) bool {
	if m.Host == te.HostOf(r.TEEndpoint) {
		return true
	}
	if v6 := strings.Contains(m.Host, ":"); te.Resolvable(m.Host) && (!v6 || c.p.TCPDualStack) {
		return true
	} else if te.Resolvable(m.Host) {
		// An IPv4-only listener (before 0.3.9): nothing answers on the IPv6 address.
		c.transferDialLog(fmt.Sprintf("%s:%d", m.Host, m.Port+1), "connect", "Connection refused")
		return false
	}
	// The resolver's EAI_NONAME, in each release's words (real
	// io/peer-advertises-unresolvable-host).
	c.transferDialLog(fmt.Sprintf("%s:%d", m.Host, m.Port+1), "resolve", "Host not found (authoritative)")
	return false
}

// publication is one thing the remount writes to the metadata service
// again, with its retry flag (segment_desc_publish_pending_,
// rpc_meta_publish_pending_).
type publication struct {
	what    string
	pending *bool
	publish func(context.Context) int
}

func (c *RealClient) publications() []publication {
	return []publication{
		{"segment descriptor", &c.segPending, c.te.UpdateLocalSegmentDesc},
		{"RPC meta entry", &c.rpcMetaPending, c.te.RePublishRpcMetaEntry},
	}
}

// republishSteps is the end of the ping thread's remount_segment (v0.3.12+,
// client_service.cpp): whether or not ReMountSegment succeeded, the segment
// descriptor and then the rpc_meta entry are written again, because a
// master restarted with its embedded metadata server lost both. Before
// v0.3.12 a remount restores the master's allocation state only.
func (c *RealClient) republishSteps() []RemountStep {
	if !c.p.RemountRepublish || c.te == nil {
		return nil
	}
	var steps []RemountStep
	for _, p := range c.publications() {
		steps = append(steps, func(ctx context.Context, _ master.Service) {
			rc := p.publish(ctx)
			*p.pending = rc != 0
			if rc != 0 {
				c.logf(mlog.Error, "Failed to re-publish %s to metadata server, rc=%d, will retry in next heartbeat cycle", p.what, rc)
			}
		})
	}
	return steps
}

// retryRepublish is a plain successful ping's retry of a failed
// re-publication: the segment descriptor first, the rpc_meta entry at a
// later ping once that succeeded.
func (c *RealClient) retryRepublish(ctx context.Context) {
	if c.te == nil {
		return
	}
	for _, p := range c.publications() {
		if !*p.pending {
			continue
		}
		if rc := p.publish(ctx); rc != 0 {
			c.logf(mlog.Error, "Retry: failed to re-publish %s to metadata server, rc=%d", p.what, rc)
			return
		}
		c.logf(mlog.Info, "Retry: successfully re-published %s to metadata server", p.what)
		*p.pending = false
		return
	}
}

// rdmaTransfer is the RDMA transport's part of a transfer of replica r
// for key (te.RDMATransfer: failed work completions, the RNIC's error
// counter); false when the transfer failed, with the store's lines
// logged (client_service.cpp v0.3.8.post1 … v0.3.11.post1: Put's
// TransferData, BatchPut's SubmitTransfers and WaitForTransfers; batch:
// a batch_put_from). A memcpy or another transport does not reach it.
func (c *RealClient) rdmaTransfer(ctx context.Context, r master.Replica, write bool, src uint64, size int64, key string, batch bool) bool {
	if r.TEProtocol == "ascend" {
		return c.ascendTransfer(ctx, r, key, batch)
	}
	if c.localMemcpy(r) || r.TEProtocol != "rdma" {
		return true
	}
	// src 0: no local buffer modelled for this transfer (nothing to check).
	if src != 0 && !c.te.IsRegistered(src, size) {
		c.addressNotRegistered(ctx, src, write, key, batch)
		return false
	}
	switch out := c.te.RDMATransfer(ctx, c.d.Clock, write, src, r.Addr, size, r.TEEndpoint); out {
	case te.RDMASubmitFailed:
		// TransferSubmitter::submitTransfer (transfer_task.cpp v0.3.9:603).
		c.logf(mlog.Error, "Failed to submit all transfers, error code is InvalidArgument")
		if batch {
			c.logf(mlog.Error, "Transfer submission failed for key %s: Failed to submit transfer for replica 0", key)
			c.batchFails = append(c.batchFails, batchFail{key, "Failed to submit transfer for replica 0"})
		} else {
			c.logf(mlog.Error, "Failed to submit transfer operation")
		}
		return false
	case te.RDMANoActiveDevice:
		c.addressNotRegistered(ctx, src, write, key, batch)
		return false
	case te.RDMACrashed, te.RDMAPostSendCrashed:
		c.died = out.Died()
		return false
	case te.RDMAFailed:
		if batch {
			c.batchTransferFailed(key)
		} else {
			c.transferTaskFailed()
		}
		return false
	}
	return true
}

// ascendTransfer is a transfer to a replica in a segment served over the
// Ascend direct transport (an Ascend build's store, protocol "ascend"):
// the transport's own lines (te.TransferAscend), then WaitForTransfers'
// for a batch put's key. An Ascend build's TransferEngineOperationState
// does not log the failed task (transfer_task.cpp v0.3.8.post1:248,
// #ifndef USE_ASCEND_DIRECT).
func (c *RealClient) ascendTransfer(ctx context.Context, r master.Replica, key string, batch bool) bool {
	rc, err := c.te.TransferAscend(ctx, c.d.Clock, r.TEEndpoint)
	switch {
	case err != nil:
		// A peer the model has no Ascend side for (engine.Unsupported:
		// the run skips), or the run's end: the call ends with it.
		c.died = err
		return false
	case rc == 0:
		return true
	}
	if batch {
		c.batchKeyFailed(key)
	}
	return false
}

// addressNotRegistered is a transfer whose local buffer (src) no RDMA
// device registered: RdmaTransport::submitTransferTask's selectDevice
// finds no region for its first slice and the submit fails
// (rdma_transport.cpp v0.3.7.post2:381, v0.3.9:530, v0.3.12.post1:657),
// TransferSubmitter::submitTransfer logs the status (transfer_task.cpp
// v0.3.7.post2:528, v0.3.9:603), and the store's caller its own line:
// BatchGet per key (client.cpp v0.3.7.post2:711, client_service.cpp
// v0.3.9:816), BatchPut's SubmitTransfers, or TransferData's (a single
// put or get). Every key fails TRANSFER_FAIL; nothing is retried.
func (c *RealClient) addressNotRegistered(ctx context.Context, src uint64, write bool, key string, batch bool) {
	c.logf(mlog.Error, "Memory region not registered by any active device(s): %#x", src)
	c.logf(mlog.Error, "Failed to submit all transfers, error code is AddressNotRegistered")
	switch {
	case batch:
		c.logf(mlog.Error, "Transfer submission failed for key %s: Failed to submit transfer for replica 0", key)
		c.batchFails = append(c.batchFails, batchFail{key, "Failed to submit transfer for replica 0"})
	case !write && master.BatchOf(ctx) != nil:
		c.logf(mlog.Error, "Failed to submit transfer operation for key: %s", key)
	default:
		c.logf(mlog.Error, "Failed to submit transfer operation")
	}
}

// zeroCopyKey is the context key of a batch call's buffer for one key.
type zeroCopyKey struct{}

// withZeroCopy: the transfer of this key moves the caller's buffer at
// ptr itself (batch_put_from / batch_get_into), not the local buffer.
func withZeroCopy(ctx context.Context, ptr uint64) context.Context {
	return context.WithValue(ctx, zeroCopyKey{}, ptr)
}

// transferSource is a transfer's local side: the caller's buffer of a
// zero-copy call, else the client's local buffer (putSource).
func (c *RealClient) transferSource(ctx context.Context) uint64 {
	if p, ok := ctx.Value(zeroCopyKey{}).(uint64); ok {
		return p
	}
	return c.putSource()
}

// batchFail is a key of a batch whose transfer failed, with its failure
// context.
type batchFail struct{ key, context string }

// batchFailLog is the end of BatchPut for the keys whose transfer failed
// (client_service.cpp v0.3.8.post1 …): FinalizeBatchPut's BatchPutRevoke
// ("Successfully revoked failed put", INFO), then CollectResults' line per
// key with PutOperation::SetError's context ("TRANSFER_FAIL: <context>; ",
// the bare context from 0.3.12: Profile.BatchPutBareContext). Real submits every key before it
// waits on any; the model runs them one by one, so the per-key lines
// before these interleave.
func (c *RealClient) batchFailLog() {
	for _, f := range c.batchFails {
		c.logf(mlog.Info, "Successfully revoked failed put for key %s", f.key)
	}
	for _, f := range c.batchFails {
		if c.p.BatchPutBareContext {
			c.logf(mlog.Error, "Operation for key %s failed: %s (%s)", f.key, mooncake.TRANSFER_FAIL.Name(), f.context)
			continue
		}
		c.logf(mlog.Error, "Operation for key %s failed: %s (%s: %s; )", f.key, mooncake.TRANSFER_FAIL.Name(), mooncake.TRANSFER_FAIL.Name(), f.context)
	}
	c.batchFails = nil
}

// batchTransferFailed is a batch put's key whose TCP transfer failed at
// the connect: the transfer task's failure line (TransferFuture's wait,
// transfer_task.cpp), then BatchPut's own (client_service.cpp), the key's
// line at the end of the batch (batchFailLog). Real 0.3.10.post1 …
// 0.3.12.post1 with no local port left (io/tcp-ephemeral-ports-exhausted,
// docs/REAL-FINDINGS.md §69).
func (c *RealClient) batchTransferFailed(key string) {
	c.transferTaskFailed()
	c.batchKeyFailed(key)
}

// batchKeyFailed is WaitForTransfers' line for a batch put's key whose
// transfer failed (client_service.cpp v0.3.8.post1:1126), kept for the
// end of the batch (batchFailLog).
func (c *RealClient) batchKeyFailed(key string) {
	if !c.p.BatchPutBareContext {
		c.logf(mlog.Error, "Transfer failed for key %s: %s (Transfer 0 failed)", key, mooncake.TRANSFER_FAIL.Name())
	}
	c.batchFails = append(c.batchFails, batchFail{key, "Transfer 0 failed"})
}

// putSource is where a transfer's local side is, for the RDMA slices'
// source_addr: the client's registered local buffer (Put copies the
// value there), 0 without one.
func (c *RealClient) putSource() uint64 {
	if c.localBuf == nil {
		return 0
	}
	return c.localBuf.Ptr
}

// storeTransferWait is TransferTask's wait for a batch's transfers: a
// constexpr 60 s, no knob (transfer_task.cpp v0.3.4 … v0.3.12.post1, main).
const storeTransferWait = 60 * time.Second

// batchStartKey is the context key of a batch call's submission time.
type batchStartKey struct{}

// statusFrameTimeout is MC_TCP_STATUS_TIMEOUT_SEC (tcp_transport.cpp
// statusFrameTimeoutSec: atoi, a value under 1 is the default 30 s).
func (c *RealClient) statusFrameTimeout() time.Duration {
	v, set := c.d.Env["MC_TCP_STATUS_TIMEOUT_SEC"]
	n := mooncake.ParseKnob(c.p.Version, "MC_TCP_STATUS_TIMEOUT_SEC", v, set).Int
	if n < 1 {
		n = 30
	}
	return time.Duration(n) * time.Second
}

// transferStalled waits for whichever deadline ends a transfer to a peer
// that accepted the connection and never answers (te.TransferStalled), and
// logs what real logs then; the transfer fails (TRANSFER_FAIL). From
// 0.3.12 the TCP transport's status-frame deadline drops the connection;
// before, only the store's 60 s wait ends it - from the batch's submission
// from 0.3.10.post2, from each key's wait before (so a batch's keys time
// out one after another). Real runs of io/peer-paused-store-wait and
// io/peer-paused-transfer-timeout, 0.3.9 … 0.3.14 (REAL-FINDINGS §40).
func (c *RealClient) transferStalled(ctx context.Context, write bool) error {
	at, status := c.stallDeadline(ctx)
	if d := at - c.d.Clock.Now(); d > 0 {
		if err := c.d.Clock.Sleep(ctx, d); err != nil {
			return err
		}
	}
	c.stalledLines(status, write)
	return nil
}

// stalledLines are the lines of a transfer that met its deadline
// (transferStalled): status > 0 is the status-frame deadline's.
func (c *RealClient) stalledLines(status time.Duration, write bool) {
	c.batches++
	id := transferBatchBase + c.batches*16
	switch {
	case status > 0:
		c.logf(mlog.Error, "ClientSession: no status frame within %ds (peer likely speaks the legacy protocol); dropping connection", int64(status/time.Second))
		if !write {
			c.logf(mlog.Error, "ClientSession: failed to read READ status frame. Error: Operation aborted. (value: 125)")
		}
		c.logf(mlog.Error, "Batch %d completed with task failures: task_ids=[0]", id)
	case c.p.TransferWaitFromSubmit:
		c.logf(mlog.Error, "Failed to complete transfers after %d milliseconds for batch %d", storeTransferWait.Milliseconds(), id)
	default:
		c.logf(mlog.Error, "Failed to complete transfers after %d seconds for batch %d", int64(storeTransferWait/time.Second), id)
	}
}

// readerBuffer stands for the reader's buffer address in the TCP
// transport's lines (real prints its heap address).
const readerBuffer = 0x7f3a40001040

// sessionLog logs f's TCP session line at release v on log (te.SessionLine:
// the texts of every release in one table), for a slice at addr: the buffer
// is the address itself (host memory, no staging copy).
func sessionLog(log mlog.Logger, v mooncake.Version, step te.SessionStep, err te.SocketError, addr uint64) {
	if log == nil {
		return
	}
	if lvl, text, ok := te.SessionLine(v, te.SessionFailure{Step: step, Err: err, Addr: addr, Buffer: addr}); ok {
		log.Log(lvl, text)
	}
}

// connectUnanswered is a transfer whose connect to the peer's data port
// gets no SYN-ACK (te.TransferUnanswered). Up to 0.3.12.post1 the TCP
// transport connects inside startTransfer with a blocking asio::connect,
// so the transfer waits until the kernel gives up and fails with its
// connect line and the failed task's (real 0.3.9: "… encountered an ASIO
// exception … Exception: connect: Connection timed out", "Transfer failed
// for batch … with status 6"; 0.3.12.post1: getConnection's two lines,
// "Batch … completed with task failures"; both after 134.3 s). From
// 0.3.13.post1 a TCP lane connects on its own thread and the store's 60 s
// wait ends the transfer first, with no connect line (real 0.3.13.post1:
// "Failed to complete transfers after 60000 milliseconds", 60.03 s).
func (c *RealClient) connectUnanswered(ctx context.Context, tu *te.TransferUnanswered, write bool) error {
	if c.p.TCPRefusedLog == "lane" {
		start := c.d.Clock.Now()
		if s, ok := ctx.Value(batchStartKey{}).(time.Duration); ok && c.p.TransferWaitFromSubmit {
			start = s
		}
		if d := start + storeTransferWait - c.d.Clock.Now(); d > 0 {
			if err := c.d.Clock.Sleep(ctx, d); err != nil {
				return err
			}
		}
		c.stalledLines(0, write)
		c.laneGiveUps = append(c.laneGiveUps, laneGiveUp{at: start + tu.After, endpoint: tu.Endpoint})
		return nil
	}
	if err := c.d.Clock.Sleep(ctx, tu.After); err != nil {
		return err
	}
	c.transferRefusedLog(tu.Endpoint, te.ConnectTimedOut)
	c.transferTaskFailed()
	return nil
}

// laneGiveUp is a TCP lane's connect the store stopped waiting for: at
// the kernel's give-up the lane logs its failure (real 0.3.13.post1:
// "TCP lane connection to <ip>:<port> failed: Connection timed out
// (attempt failure 1)", tcp_transport_lane_impl.h:1088, 134.2 s after the
// put started, 74 s after the put had returned -800).
type laneGiveUp struct {
	at       time.Duration
	endpoint string
}

// flushLaneGiveUps logs the lane failures whose time has come, from the
// heartbeat and before the client's next transfer: the model has no
// thread of the lane's own, so a line lands up to one ping interval late,
// or at that transfer for a client without pings.
func (c *RealClient) flushLaneGiveUps() {
	now, kept := c.d.Clock.Now(), c.laneGiveUps[:0]
	for _, g := range c.laneGiveUps {
		if now < g.at {
			kept = append(kept, g)
			continue
		}
		c.transferRefusedLog(g.endpoint, te.ConnectTimedOut)
	}
	c.laneGiveUps = kept
}
