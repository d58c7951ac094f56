package te

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// Py is mooncake.engine.TransferEngine (transfer_engine_py.cpp), the
// binding PD disaggregation drives directly (SGLang's
// disaggregation/mooncake, vLLM's Mooncake connector): initialize,
// register_memory, transfer_sync_write and batch_transfer_sync_write over
// one Engine: the TCP data path, and RDMA's work requests and handshakes
// (Engine.RDMATransfer) without their data.
type Py struct {
	e     *Engine
	data  DataPath
	clock engine.Clock
	// allocator is allocate_managed_buffer's (chooseAllocator: "nvlink",
	// "nvlink_intra", "none" = NULL, "" = malloc) and the protocol given.
	allocator, protocol string
	// batches numbers the batch ids a timeout leaves busy (real ids are
	// heap addresses: only the text around them is compared).
	batches int
}

// NewPy is TransferEnginePy(): nothing runs until initialize.
func NewPy(cfg Config, data DataPath, clock engine.Clock) *Py {
	return &Py{e: New(cfg), data: data, clock: clock}
}

// Engine is the engine underneath (its endpoint, for the data path).
func (p *Py) Engine() *Engine { return p.e }

// Initialize is initialize(local_hostname, metadata_server, protocol,
// device_name): TransferEngine(true, device_filter)::init, topology
// auto-discovery over the devices device_name lists (all when empty),
// which installs RDMA on the HCAs it finds and TCP when it finds none
// (real 0.3.9, 0.3.12.post1: "Found 0 HCAs", "TcpTransport: listen on
// port"). The protocol argument is not read (initializeExt: (void)
// protocol, transfer_engine_py.cpp v0.3.4.post2:118, v0.3.9:161; from
// v0.3.12 only xgmi and the EFA/CXI builds look at it). 0 or -1, as Python
// receives it.
//
// Where the engine's import also loads store.so (Profile.EngineImportsStore)
// config.cpp's lines print twice, each module loading its own
// globalConfig(); a store alone loads store.so only (InitStore: once).
func (p *Py) Initialize(ctx context.Context, localHostname, metadataServer, protocol, deviceName string) int {
	if p.e.cfg.Profile.EngineImportsStore {
		p.e.loadGlobalConfig()
	}
	p.e.loadGlobalConfig()
	p.initMemoryAllocator(protocol)
	p.allocator = p.chooseAllocator(protocol)
	p.protocol = protocol
	p.e.filter = splitDevices(deviceName)
	p.e.metricsLine()
	// initializeExt passes no host and port to init unless
	// MC_LEGACY_RPC_PORT_BINDING (transfer_engine_py.cpp v0.3.4.post2:120-128).
	p.e.startingLine(localHostname, metadataServer, "", 0)
	if rc := p.e.init(ctx, localHostname, metadataServer, true); rc != 0 {
		return -1
	}
	return 0
}

// initMemoryAllocator is initialize's choice of allocate_managed_buffer's
// allocator by protocol (transfer_engine_py.cpp v0.3.9:41-80 …
// v0.3.12.post1:53-100): the NVLink protocols take their transport's
// allocator when the build has it. Only those are modelled: the other
// protocols' WARNING "Using default malloc/free for protocol: …" is not.
func (p *Py) initMemoryAllocator(protocol string) {
	if !p.e.cfg.Profile.NVLinkSelect {
		return
	}
	has := p.e.built
	switch {
	case protocol == "nvlink" && has(engine.BuildMNNVL):
		p.e.logf(mlog.Info, "Selected MNNVL (NVLink) memory allocator")
	case protocol == "nvlink":
		p.e.logf(mlog.Error, "Protocol 'nvlink' requires -DUSE_MNNVL=ON")
	case protocol == "nvlink_intra" && has(engine.BuildIntraNVLink):
		p.e.logf(mlog.Info, "Selected Intra-NVLink memory allocator")
	case protocol == "nvlink_intra":
		p.e.logf(mlog.Error, "Protocol 'nvlink_intra' requires -DUSE_INTRA_NVLINK=ON")
	}
}

// RPCPort is get_rpc_port(): the handshake/RPC port init chose.
func (p *Py) RPCPort() int { return p.e.rpcPort }

// RegisterMemory is register_memory(addr, capacity): registerLocalMemory's
// return code.
func (p *Py) RegisterMemory(ctx context.Context, addr uint64, length int64) int {
	return p.e.RegisterLocalMemory(ctx, addr, length, true)
}

// UnregisterMemory is unregister_memory(addr): unregisterLocalMemory's
// return code (the segment descriptor republished without the buffer).
func (p *Py) UnregisterMemory(ctx context.Context, addr uint64) int {
	return p.e.UnregisterLocalMemory(ctx, addr)
}

// transferTimeout is transfer_timeout_nsec_: MC_TRANSFER_TIMEOUT seconds,
// at least 5, default 30 (transfer_engine_py.cpp v0.3.12.post1:104-111).
func (p *Py) transferTimeout() time.Duration {
	v, set := p.e.env("MC_TRANSFER_TIMEOUT")
	n := int64(30)
	if set {
		n = mooncake.ParseKnob(p.e.cfg.Profile.Version, "MC_TRANSFER_TIMEOUT", v, set).Int
		n = max(n, 5)
	}
	return time.Duration(n) * time.Second
}

// statusFrameTimeout is MC_TCP_STATUS_TIMEOUT_SEC (tcp_transport.cpp
// statusFrameTimeoutSec: under 1 is the default 30 s).
func (p *Py) statusFrameTimeout() time.Duration {
	v, set := p.e.env("MC_TCP_STATUS_TIMEOUT_SEC")
	n := mooncake.ParseKnob(p.e.cfg.Profile.Version, "MC_TCP_STATUS_TIMEOUT_SEC", v, set).Int
	if n < 1 {
		n = 30
	}
	return time.Duration(n) * time.Second
}

// TransferSyncWrite is transfer_sync_write(target, buffer, peer_address,
// length) (entries 0), or batch_transfer_sync_write of entries equal,
// consecutive entries that make up length: the
// segment opened (the handshake's descriptor, or the metadata's), the
// write submitted, then its status polled until it completes, fails, or
// transfer_timeout_nsec_ + length ns pass since the submission
// (transferSync / batchTransferSync, v0.3.9 … v0.3.14). A peer that
// accepted the connection and never answers (SIGSTOP'd) leaves the write
// pending: from 0.3.12 the TCP transport's status-frame deadline fails it
// first if it is the shorter; else the loop's timeout logs "Sync (batch)
// data transfer timeout after <n>ns" and Python gets -1 (real
// 0.3.12.post1, MC_TRANSFER_TIMEOUT=5: -1 after 5.000 s).
func (p *Py) TransferSyncWrite(ctx context.Context, target string, local, peer uint64, length int64, entries int) (int, error) {
	batch := entries > 0
	if !p.e.OpenSegment(ctx, target) {
		return -1, nil
	}
	if p.e.nvlinkInstalled() {
		return p.e.transferNVLink(ctx, target, peer, length), nil
	}
	if p.e.ascend != nil {
		return p.transferAscend(ctx, target)
	}
	if len(p.e.nics) > 0 {
		return p.transferRDMA(ctx, target, local, peer, length, entries)
	}
	if hostmem.IsDevice(local) && !p.e.cfg.Profile.TCPStagesGPUMemory {
		// The TCP session's socket write reads the GPU address itself
		// (no CUDA staging in this build): EFAULT on the first body
		// write, the slice FAILED, and transferSync returns -1.
		p.e.logf(mlog.Error, "%s", writeBodyEFAULT(p.e.cfg.Profile, local))
		return -1, nil
	}
	start := p.clock.Now()
	err := p.data.Write(ctx, target, peer, hostmem.Content{Size: length})
	if err == nil {
		return 0, nil
	}
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	var rej *TransferAddrRejected
	if errors.As(err, &rej) {
		rej.Log(p.e.cfg.Log, "WRITE")
		return -1, nil
	}
	var stalled *TransferStalled
	if !errors.As(err, &stalled) {
		p.e.logf(mlog.Error, "faultlab model: transfer to %s failed: %v", target, err)
		return -1, nil
	}
	timeout := p.transferTimeout() + time.Duration(length) // 1 GiB per second
	if p.e.cfg.Profile.TCPStatusDeadline {
		if s := p.statusFrameTimeout(); s < timeout {
			if err := p.clock.Sleep(ctx, start+s-p.clock.Now()); err != nil {
				return 0, err
			}
			p.e.logf(mlog.Error, "ClientSession: no status frame within %ds (peer likely speaks the legacy protocol); dropping connection", int64(s/time.Second))
			return -1, nil
		}
	}
	// The poll loop notices the deadline on its next pass: a little after.
	elapsed := timeout + time.Microsecond
	if err := p.clock.Sleep(ctx, start+elapsed-p.clock.Now()); err != nil {
		return 0, err
	}
	p.timeoutLine(elapsed, local, peer, length, batch)
	if p.e.cfg.Profile.TEDeferredBatchCleanup {
		// freeBatchID of a batch whose slice is still in flight.
		p.batches++
		p.e.logf(mlog.Warning, "Batch %d is still busy; cleanup has been deferred", p.batches)
	}
	return -1, nil
}

// transferRDMA is transferSync / batchTransferSync over the RDMA
// transport (transfer_engine_py.cpp v0.3.4.post2:262-300, v0.3.9:300-392
// and 394-493, v0.3.12.post1:456-627): up to numContexts()+1 submissions,
// each a new batch whose request the next local context takes (the
// model's selectContext goes round them), a FAILED one followed by the
// next; a submission refused is -1 at once. Each entry is a request of
// its own, with a local context of its own (the source buffer's
// selectDevice); the batch FAILED when one of them failed. Every status
// poll checks transfer_timeout_nsec_ + length since the first
// submission: a request still failing its slices then is the timeout
// line and -1. The model's
// request runs to its end before the check, so the line's time is the
// deadline, as the poll that saw it pass prints it (the field's
// "Sync batch data transfer timeout after 30000001699ns"). The NIC
// writes into the peer's memory whether its process runs or not: no
// stall, and no data modelled.
func (p *Py) transferRDMA(ctx context.Context, target string, local, peer uint64, length int64, entries int) (int, error) {
	start := p.clock.Now()
	timeout := p.transferTimeout() + time.Duration(length)
	n := max(1, entries)
	step := length / int64(n)
	for range len(p.e.nics) + 1 {
		failed := false
		for i := range int64(n) {
			off := uint64(i * step)
			out := p.e.RDMATransfer(ctx, p.clock, true, local+off, peer+off, step, target)
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			switch out {
			case RDMASubmitFailed, RDMANoActiveDevice:
				return -1, nil
			case RDMACrashed, RDMAPostSendCrashed:
				return 0, out.Died()
			case RDMAFailed:
				failed = true
			}
		}
		if !failed {
			return 0, nil
		}
		if p.clock.Now()-start > timeout {
			p.timeoutLine(timeout+time.Microsecond, local, peer, length, entries > 0)
			return -1, nil
		}
	}
	return -1, nil
}

// timeoutLine is the poll loop's line when its deadline passed.
func (p *Py) timeoutLine(elapsed time.Duration, local, peer uint64, length int64, batch bool) {
	if batch {
		p.e.logf(mlog.Info, "Sync batch data transfer timeout after %dns", elapsed.Nanoseconds())
	} else {
		p.e.logf(mlog.Info, "Sync data transfer timeout after %dns, local buffer %#x remote buffer %#x length %d", elapsed.Nanoseconds(), local, peer, length)
	}
}

// Close is ~TransferEnginePy: the engine freed.
func (p *Py) Close(ctx context.Context) { p.e.Close(ctx) }

// String names the engine in errors.
func (p *Py) String() string { return fmt.Sprintf("TransferEngine(%s)", p.e.serverName) }

// writeBodyEFAULT is Session::writeBody's failure of a socket write from
// an address the kernel cannot read (EFAULT) at the first chunk: up to
// v0.3.5 without the addresses (tcp_transport.cpp v0.3.4.post2:137), from
// v0.3.6 with the source and the buffer written from (the same address
// when nothing was staged; v0.3.6:168-174).
func writeBodyEFAULT(p mooncake.Profile, addr uint64) string {
	_, text, _ := SessionLine(p.Version, SessionFailure{Step: ClientWriteBody, Err: ErrBadAddress, Addr: addr, Buffer: addr})
	return text
}
