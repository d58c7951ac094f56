package te

import (
	"context"
	"strconv"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
)

// The Ascend direct transport (ascend_direct_transport.cpp v0.3.6 …
// v0.3.10; from v0.3.10.post1 with transfer_executor_base.cpp and
// sync_transfer_executor.cpp), the transport of a USE_ASCEND_DIRECT build
// that vLLM-Ascend's Mooncake connectors and KV pool drive: ADXL (CANN's
// one-sided HCCL engine) under the transfer engine. Modelled: install
// (AdxlEngine::Initialize), ADXL Connect to a peer, TransferSync's status,
// each with the lines of its release (Profile.Ascend*), and the async
// path's status query (ASCEND_USE_ASYNC_TRANSFER, from v0.3.8; the build
// taken to have found TransferAsync in CANN's adxl_engine.h, a model
// choice). Not modelled: the async path's connect failures and timeouts,
// the buffer pool, fabric memory,
// agent mode, ASCEND_AUTO_CONNECT (and v0.3.12's capability probe, taken
// as unsupported: the executor connects first), the local copy's engine,
// the "Connected to segment" and "Success to initialize" lines (their
// cost and pid are the wall clock's and the process's).

// adxl::Status values the model itself produces (adxl_compat.h
// 3b5a594:41-49; a node's transfer_status may be any of
// engine.AdxlTransferStatuses).
const (
	AdxlSuccess      uint32 = 0
	AdxlTimeout      uint32 = 103901
	AdxlNotConnected uint32 = 103902
	AdxlFailed       uint32 = 503900
)

// ascendBasePort is base_port_'s default (ascend_direct_transport.h
// v0.3.8.post1:141, v0.3.12.post1:79), ASCEND_BASE_PORT overrides it.
const ascendBasePort = 20000

// ascendState is an installed Ascend direct transport.
type ascendState struct {
	name      string          // local_adxl_engine_name_ (host_ip:port)
	connected map[string]bool // connected_segments_
	// async: ASCEND_USE_ASYNC_TRANSFER was set (use_async_transfer_):
	// TransferAsync, then the query thread's GetTransferStatus.
	async bool
}

// ascendBuild: the node runs a USE_ASCEND_DIRECT build of a release that
// has the transport (before v0.3.6 CMake ignores the option).
func (e *Engine) ascendBuild() bool {
	return e.cfg.Profile.AscendDirect && e.built(engine.BuildAscendDirect)
}

// AdxlEngineName is the ADXL engine name this engine's segment descriptor
// publishes (rank_info hostIp:hostPort), "" without the transport: what a
// peer connects to.
func (e *Engine) AdxlEngineName() string {
	if e.ascend == nil {
		return ""
	}
	return e.ascend.name
}

// installAscend is TransferEngineImpl::init's installTransport("ascend")
// (transfer_engine_impl.cpp v0.3.8.post1:195-201, v0.3.12.post1:226-232):
// AscendDirectTransport::install, whose AdxlEngine::Initialize fails on a
// CANN older than engine.CANNForADXL with adxl::FAILED (a model choice:
// the status is CANN's, not pinned on real). Then init returns -1.
func (e *Engine) installAscend() int {
	e.logf(mlog.Info, "install AscendDirectTransport for: %s", e.serverName)
	host, _ := splitHostPort(e.serverName)
	// findAdxlListenPort (v0.3.8.post1:554-600, utils.cpp v0.3.12.post1):
	// a port of [base + dev*100, base + (dev+1)*100] for device 0.
	base := ascendBasePort
	if v, ok := e.env("ASCEND_BASE_PORT"); ok {
		if n, err := strconv.Atoi(v); err == nil {
			base = n
		}
	}
	port := base
	if e.cfg.PortRand != nil {
		port += e.cfg.PortRand.IntN(101)
	}
	name := host + ":" + strconv.Itoa(port)
	// InitAdxlEngine reads ASCEND_USE_ASYNC_TRANSFER before Initialize
	// (ascend_direct_transport.cpp v0.3.8.post1:227-233, v0.3.10:239-248;
	// transfer_executor_base.cpp v0.3.12.post1:94-97, :214-216). A build
	// without EXIST_ADXL_ASYNC_METHOD ("… please upgrade cann package.",
	// -1) is not modelled.
	_, async := e.env("ASCEND_USE_ASYNC_TRANSFER")
	if async {
		e.logf(mlog.Info, "Use async transfer")
	}
	if status := e.adxlInitStatus(); status != AdxlSuccess {
		// InitAdxlEngine (v0.3.8.post1:263-266; from v0.3.10 with
		// aclGetRecentErrMsg, v0.3.10:292-294; transfer_executor_base.cpp
		// v0.3.12.post1:230-234): the errmsg is CANN's, empty here.
		if e.cfg.Profile.AscendRetry {
			e.logf(mlog.Error, "Failed to initialize AdxlEngine, status: %d, errmsg: ", status)
		} else {
			e.logf(mlog.Error, "Failed to initialize AdxlEngine, status: %d", status)
		}
		if e.cfg.Profile.AscendExecutor {
			// ascend_direct_transport.cpp v0.3.10.post1:113-117, v0.3.12.post1:114-118.
			e.logf(mlog.Error, "AscendDirectTransport: TransferExecutor init failed, ret: -1")
		} else {
			// ascend_direct_transport.cpp v0.3.6:106-110, v0.3.10:117-121.
			e.logf(mlog.Error, "AscendDirectTransport: InitAdxlEngine failed, ret: -1")
		}
		e.logf(mlog.Error, "Failed to install Ascend transport")
		return -1
	}
	e.ascend = &ascendState{name: name, connected: map[string]bool{}, async: async}
	e.transports = append(e.transports, "ascend")
	return 0
}

// adxlInitStatus is AdxlEngine::Initialize's status on this host.
func (e *Engine) adxlInitStatus() uint32 {
	npu := e.cfg.Host.NPU
	if npu == nil || npu.CANN == "" {
		return AdxlSuccess
	}
	if ok, err := engine.CANNAtLeast(npu.CANN, engine.CANNForADXL); err == nil && !ok {
		return AdxlFailed
	}
	return AdxlSuccess
}

// connectStatus is this node's ADXL Connect's status when CANN refuses
// the channel (engine.NPUSpec.ConnectStatus), else SUCCESS.
func (e *Engine) connectStatus() uint32 {
	if npu := e.cfg.Host.NPU; npu != nil {
		return npu.ConnectStatus
	}
	return AdxlSuccess
}

// transferStatus is the status this node's transfers end in
// (engine.NPUSpec.TransferStatus), else SUCCESS.
func (e *Engine) transferStatus() uint32 {
	if npu := e.cfg.Host.NPU; npu != nil {
		return npu.TransferStatus
	}
	return AdxlSuccess
}

// ascendConnectTimeout is connect_timeout_ in ms: ASCEND_CONNECT_TIMEOUT when it
// parses, else Profile.AscendConnectTimeoutMs.
func (e *Engine) ascendConnectTimeout() time.Duration {
	ms := e.cfg.Profile.AscendConnectTimeoutMs
	if v, ok := e.env("ASCEND_CONNECT_TIMEOUT"); ok {
		if n, err := strconv.Atoi(v); err == nil {
			ms = n
		}
	}
	return time.Duration(ms) * time.Millisecond
}

// transferAscend is one write into a peer's segment over the Ascend
// direct transport, as transfer_sync_write sees it: 0, or -1 when the
// slice failed. Per release (Profile):
//   - v0.3.6 … v0.3.9 (processSliceList, connectAndTransfer): one attempt;
//     a failed Connect is "Failed to connect to target: …, status: S"
//     (up to v0.3.7 with "Failed to connect to segment: …"); from v0.3.8 a
//     Connect TIMEOUT logs "Connect timeout to: …" and goes on as if
//     connected, so TransferSync then meets no channel (NOT_CONNECTED, a
//     model choice); a failed TransferSync is "Transfer slice failed with
//     status: S", from v0.3.8 then "transfer failed and disconnect to:…";
//   - v0.3.10 … (kRetryTimes/kTransferRetryTimes 2): a failed attempt
//     disconnects and is retried once, "Retry transfer to:" (v0.3.10 after
//     each attempt, with the segment name; from v0.3.10.post1 between
//     them, with the ADXL name), then "Transfer failed to: …, errmsg: ".
func (p *Py) transferAscend(ctx context.Context, target string) (int, error) {
	return p.e.TransferAscend(ctx, p.clock, target)
}

// TransferAscend is one transfer to target's segment over the Ascend
// direct transport (transferAscend's, also the store's: a replica whose
// segment's protocol is "ascend", client_service.cpp's TransferSubmitter
// through the same transport): 0, or -1 when it failed.
func (e *Engine) TransferAscend(ctx context.Context, clock engine.Clock, target string) (int, error) {
	var peer Peer
	ok := false
	if e.cfg.Host.Peer != nil {
		peer, ok = e.cfg.Host.Peer(target)
	}
	if !ok || peer.Adxl == "" {
		return 0, engine.Unsupportedf("transfer to %s over the Ascend transport: the peer's segment has no ADXL engine (only Ascend peers are modelled)", target)
	}
	name := peer.Adxl
	if name == e.ascend.name {
		return 0, nil // localCopy: no ADXL
	}
	prof := e.cfg.Profile
	attempts := 1
	if prof.AscendRetry {
		attempts = 2
	}
	if e.ascend.async {
		return e.transferAscendAsync(peer, name)
	}
	for i := range attempts {
		ok, err := e.ascendAttempt(ctx, clock, target, name, peer)
		if err != nil || ok {
			return 0, err
		}
		switch {
		case prof.AscendExecutor && i+1 < attempts:
			// transfer_executor_base.cpp v0.3.12.post1:686-695.
			e.logf(mlog.Info, "Retry transfer to:%s", name)
		case prof.AscendRetry && !prof.AscendExecutor:
			// ascend_direct_transport.cpp v0.3.10:825-833.
			e.logf(mlog.Info, "Retry transfer to:%s", target)
		}
	}
	if prof.AscendRetry {
		// ascend_direct_transport.cpp v0.3.10:834-847,
		// transfer_executor_base.cpp v0.3.12.post1:697-706 (status
		// FAILED: neither a failed connect nor the set statuses are
		// TIMEOUT).
		e.logf(mlog.Error, "Transfer failed to: %s, errmsg: ", name)
	}
	return -1, nil
}

// ascendAttempt is one connect-and-TransferSync: ok, or false with its
// lines logged.
func (e *Engine) ascendAttempt(ctx context.Context, clock engine.Clock, target, name string, peer Peer) (bool, error) {
	prof := e.cfg.Profile
	linkDown := peer.NPU != nil && peer.NPU.LinkDown
	status := AdxlSuccess
	if !e.ascend.connected[name] {
		if cs := e.connectStatus(); cs != AdxlSuccess {
			// Connect refused at once (not TIMEOUT): every release
			// returns -1 from checkAndConnect (ascend_direct_transport.cpp
			// v0.3.7:786-797 with "Failed to connect to segment" from
			// processSliceList :575-583; v0.3.8.post1:1110-1114,
			// v0.3.10:1156-1160 with errmsg; transfer_executor_base.cpp
			// v0.3.10.post1:262-266, v0.3.12.post1:273-278).
			switch {
			case !prof.AscendConnectTimeoutBranch:
				e.logf(mlog.Error, "Failed to connect to target: %s, status: %d", name, cs)
				e.logf(mlog.Error, "Failed to connect to segment: %s", target)
			case !prof.AscendRetry:
				e.logf(mlog.Error, "Failed to connect to target: %s, status: %d", name, cs)
			default:
				e.logf(mlog.Error, "Failed to connect to target: %s, status: %d, errmsg: ", name, cs)
			}
			return false, nil
		}
		if linkDown {
			// ADXL Connect to device NICs that never answer: TIMEOUT
			// after connect_timeout_ ms.
			if err := clock.Sleep(ctx, e.ascendConnectTimeout()); err != nil {
				return false, err
			}
			switch {
			case !prof.AscendConnectTimeoutBranch:
				// ascend_direct_transport.cpp v0.3.6:520-525, :463-466.
				e.logf(mlog.Error, "Failed to connect to target: %s, status: %d", name, AdxlTimeout)
				e.logf(mlog.Error, "Failed to connect to segment: %s", target)
				return false, nil
			case !prof.AscendRetry:
				// v0.3.8.post1:1106-1110: logged, then on as if connected.
				e.logf(mlog.Error, "Connect timeout to: %s, you can increase the timeout duration to reduce the ASCEND_CONNECT_TIMEOUT environment variable.", name)
			case !prof.AscendExecutor:
				// v0.3.10:1149-1155.
				e.logf(mlog.Error, "Connect timeout to: %s, you can increase the timeout duration to reduce the failure rate by configuring the ASCEND_CONNECT_TIMEOUT environment variable, errmsg: ", name)
				return false, nil
			default:
				// transfer_executor_base.cpp v0.3.10.post1:257-261, v0.3.12.post1:268-272.
				e.logf(mlog.Error, "Connect timeout to: %s, errmsg: ", name)
				return false, nil
			}
		}
		e.ascend.connected[name] = true
	}
	switch {
	case linkDown:
		status = AdxlNotConnected
	case e.transferStatus() != AdxlSuccess:
		status = e.transferStatus()
	}
	if status == AdxlSuccess {
		return true, nil
	}
	// A failed TransferSync disconnects (v0.3.7:607, v0.3.8.post1:841-846,
	// v0.3.10:877-880, sync_transfer_executor.cpp v0.3.12.post1:78-84).
	delete(e.ascend.connected, name)
	if !prof.AscendRetry {
		// v0.3.6:501, v0.3.8.post1:836 (ERROR), :843 (INFO).
		e.logf(mlog.Error, "Transfer slice failed with status: %d", status)
		if prof.AscendDisconnectLine {
			e.logf(mlog.Info, "transfer failed and disconnect to:%s", name)
		}
	}
	return false, nil
}

// transferAscendAsync is one write on the async path (connected, as the
// model's peers with their link up are): TransferAsync submits it
// (SUCCESS: the slices go to the query thread, so the submitter neither
// retries nor logs), and the query thread's GetTransferStatus reports the
// device-side failure; ret is the node's transfer_status (a model choice:
// CANN's, not pinned on real). Per release:
//   - v0.3.8 … v0.3.9 (queryThread): "Get transfer status failed, ret: R",
//     the slices failed (ascend_direct_transport.cpp v0.3.8.post1:676-684,
//     v0.3.9:702-710);
//   - v0.3.10 (queryThread), v0.3.10.post1 … (AsyncTransferExecutor): with
//     ", errmsg: " and CANN's message, then disconnect
//     (ascend_direct_transport.cpp v0.3.10:722-731;
//     async_transfer_executor.cpp v0.3.10.post1:257-263 fail_batch,
//     v0.3.12.post1:290-300 and :224-228 failAllPendingOnRoute).
func (e *Engine) transferAscendAsync(peer Peer, name string) (int, error) {
	if peer.NPU != nil && peer.NPU.LinkDown || e.connectStatus() != AdxlSuccess {
		return 0, engine.Unsupportedf("the Ascend transport's async path with a failed connect: its connect failures are not modelled")
	}
	e.ascend.connected[name] = true
	status := e.transferStatus()
	if status == AdxlSuccess {
		return 0, nil
	}
	if e.cfg.Profile.AscendRetry {
		e.logf(mlog.Error, "Get transfer status failed, ret: %d, errmsg: ", status)
		delete(e.ascend.connected, name)
	} else {
		e.logf(mlog.Error, "Get transfer status failed, ret: %d", status)
	}
	return -1, nil
}
