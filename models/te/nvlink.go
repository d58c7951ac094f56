package te

import (
	"context"
	"fmt"
	"slices"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
)

// The cross-node NVLink transport's memory (nvlink_transport.cpp
// v0.3.4.post2 … v0.3.12.post1, the same code at every tag): buffers are
// shared with peers as fabric handles (cuMemCreate memory, when
// supportFabricMem) or CUDA IPC handles (cudaMalloc memory, when not), and
// a peer maps a remote address only inside a buffer the owner's segment
// descriptor lists.

// NVLinkBuffer is one buffer of an NVLink segment descriptor: Fabric = a
// fabric handle (else a CUDA IPC handle).
type NVLinkBuffer struct {
	Addr   uint64
	Length int64
	Fabric bool
}

// ManagedBufferMin is the smallest allocate_managed_buffer length that
// takes allocateRawBuffer (above the largest slab class, 256 MiB:
// transfer_engine_py.h kSlabSizeKB); the slab path is not modelled.
const ManagedBufferMin = 256<<20 + 1

// supportFabricMem: MC_USE_NVLINK_IPC unset and every GPU reports
// CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED (the model's GPUs do:
// engine.GPUSpec.Fabric).
func (e *Engine) supportFabricMem() bool {
	if _, ipc := e.env("MC_USE_NVLINK_IPC"); ipc {
		return false
	}
	if g := e.cfg.Host.GPU; g == nil || g.Count == 0 {
		e.logf(mlog.Error, "NvlinkTransport: no device found")
		return false
	}
	return true
}

// nvlinkInstalled: init installed the cross-node NVLink transport.
func (e *Engine) nvlinkInstalled() bool { return slices.Contains(e.transports, "nvlink") }

// NVLinkIntra: init installed the intra-node NVLink transport. Its
// registration's check of the memory is registerNVLinkIntra; its IPC
// handles and data path are not modelled.
func (e *Engine) NVLinkIntra() bool { return slices.Contains(e.transports, "nvlink_intra") }

// NVLinkBuffers is this engine's NVLink segment descriptor's buffers (what
// a peer's relocateSharedMemoryAddress reads).
func (e *Engine) NVLinkBuffers() []NVLinkBuffer { return slices.Clone(e.nvBufs) }

// allocatePinned is NvlinkTransport::allocatePinnedLocalMemory: cudaMalloc
// without fabric memory, else cuMemCreate with a fabric handle (800 where
// the GPUs may not, NULL). alloc gives device memory of GPU 0.
func (e *Engine) allocatePinned(length int64, alloc func(string, int64) (uint64, error)) (uint64, error) {
	if !e.supportFabricMem() {
		return alloc(engine.AllocCUDA, length)
	}
	if !e.cfg.Host.GPU.Fabric {
		e.logf(mlog.Error, "NvlinkTransport: cuMemCreate failed: %d", cudaErrorNotPermitted)
		return 0, nil
	}
	p, err := alloc(engine.AllocCUDA, length)
	if err == nil {
		e.fabricAllocs = append(e.fabricAllocs, NVLinkBuffer{Addr: p, Length: length, Fabric: true})
	}
	return p, err
}

// cudaErrorNotPermitted is CUDA_ERROR_NOT_PERMITTED.
const cudaErrorNotPermitted = 800

// registerNVLink is NvlinkTransport::registerLocalMemory.
func (e *Engine) registerNVLink(addr uint64, length int64) int {
	if e.nvFabric {
		// cuMemRetainAllocationHandle finds only cuMemCreate memory.
		if !slices.ContainsFunc(e.fabricAllocs, func(b NVLinkBuffer) bool { return addr >= b.Addr && addr < b.Addr+uint64(b.Length) }) {
			e.logf(mlog.Warning, "Memory region %#x is not allocated by cuMemCreate, but it can be used as local buffer", addr)
			return 0
		}
		e.nvBufs = append(e.nvBufs, NVLinkBuffer{Addr: addr, Length: length, Fabric: true})
		return 0
	}
	if !hostmem.IsDevice(addr) {
		// cudaPointerGetAttributes: cudaMemoryTypeUnregistered (0).
		e.logf(mlog.Error, "Unsupported memory type, %#x 0", addr)
		return -1
	}
	e.nvBufs = append(e.nvBufs, NVLinkBuffer{Addr: addr, Length: length})
	return 0
}

// registerNVLinkIntra is IntraNodeNvlinkTransport::registerLocalMemory's
// check of the memory (intranode_nvlink_transport.cpp main@3b5a594:621-
// 640) and, on failure, TransferEngineImpl::registerLocalMemory's rollback
// through the same transport's unregisterLocalMemory (:689-712). Without a
// GPU cudaPointerGetAttributes fails and cuMemGetAddressRange returns 100
// (CUDA_ERROR_NO_DEVICE): real 0.3.14. With one, host memory is
// cudaMemoryTypeUnregistered (0); cuMemGetAddressRange's code for a host
// address is not pinned, so its warning is not printed there. Device
// memory registers; the IPC handles are not modelled.
func (e *Engine) registerNVLinkIntra(addr uint64) int {
	switch g := e.cfg.Host.GPU; {
	case g == nil || g.Count == 0:
		e.logf(mlog.Error, "IntraNodeNvlinkTransport: cudaPointerGetAttributes failed")
		e.logf(mlog.Warning, "IntraNodeNvlinkTransport: cuMemGetAddressRange failed for addr %#x during unregister (error 100). Memory may already be freed, using provided address.", addr)
		return -1
	case !hostmem.IsDevice(addr):
		e.logf(mlog.Error, "Unsupported memory type, %#x 0", addr)
		return -1
	}
	return 0
}

// transferNVLink is NvlinkTransport::submitTransfer of one write into a
// peer's segment: relocateSharedMemoryAddress maps the peer's buffer that
// holds [dest, dest+length) by its handle, then cudaMemcpy. 0 or -1, as
// transfer_sync_write returns.
func (e *Engine) transferNVLink(ctx context.Context, target string, dest uint64, length int64) int {
	var bufs []NVLinkBuffer
	if e.cfg.Host.Peer != nil {
		if p, ok := e.cfg.Host.Peer(target); ok {
			bufs = p.NVLink
		}
	}
	for _, b := range bufs {
		if b.Addr <= dest && dest+uint64(length) <= b.Addr+uint64(b.Length) {
			if b.Fabric && e.nvFabric && !e.cfg.Host.GPU.Fabric {
				// cuMemImportFromShareableHandle of the peer's fabric
				// handle where this node may not use fabric memory (no
				// IMEX channel): 800, CUDA_ERROR_NOT_PERMITTED, as for
				// cuMemCreate (a model choice: CUDA's code, not pinned on
				// real). nvlink_transport.cpp v0.3.7:476-483,
				// v0.3.9:438-446, v0.3.12.post1:791-797.
				e.logf(mlog.Error, "NvlinkTransport: cuMemImportFromShareableHandle failed: %d", cudaErrorNotPermitted)
				return -1
			}
			if b.Fabric != e.nvFabric {
				e.logf(mlog.Error, "Mismatched NVLink data transfer method")
				return -1
			}
			return 0
		}
	}
	e.logf(mlog.Error, "Requested address %#x to %#x not found!", dest, dest+uint64(length))
	return -1
}

// AllocateManagedBuffer is allocate_managed_buffer(length) above the slab
// classes: allocateRawBuffer, the allocator initialize chose, then
// registerLocalMemory (a failure frees it); 0 = NULL. alloc gives memory
// of an engine allocator (engine.AllocDefault: malloc; AllocCUDA).
func (p *Py) AllocateManagedBuffer(ctx context.Context, length int64, alloc func(string, int64) (uint64, error)) (uint64, error) {
	if length < ManagedBufferMin {
		return 0, engine.Unsupportedf("allocate_managed_buffer of %d bytes: the slab classes (up to 256 MiB) are not modelled", length)
	}
	var buf uint64
	var err error
	switch p.allocator {
	case "nvlink":
		buf, err = p.e.allocatePinned(length, alloc)
	case "nvlink_intra":
		return 0, engine.Unsupportedf("allocate_managed_buffer: the intra-node NVLink allocator is not modelled")
	case "none":
		return 0, engine.Unsupportedf("allocate_managed_buffer: initialize left no allocator (protocol %s without its build option: allocateMemory is NULL, the call would crash the process)", p.protocol)
	default:
		buf, err = alloc(engine.AllocDefault, length)
	}
	if err != nil || buf == 0 {
		return 0, err
	}
	if rc := p.e.RegisterLocalMemory(ctx, buf, length, true); rc != 0 {
		return 0, nil
	}
	return buf, nil
}

// chooseAllocator is the allocator allocate_managed_buffer uses: from
// v0.3.9 initMemoryAllocator(protocol) (the NVLink protocols take their
// transport's where the build has it, else none; the others malloc), before the build's
// alone (USE_MNNVL: NvlinkTransport's, transfer_engine_py.cpp
// v0.3.4.post2:23-31, v0.3.7:23-31).
func (p *Py) chooseAllocator(protocol string) string {
	has := p.e.built
	switch {
	case !p.e.cfg.Profile.NVLinkSelect && has(engine.BuildMNNVL):
		return "nvlink"
	case !p.e.cfg.Profile.NVLinkSelect:
		return ""
	case protocol == "nvlink" && has(engine.BuildMNNVL):
		return "nvlink"
	case protocol == "nvlink_intra" && has(engine.BuildIntraNVLink):
		return "nvlink_intra"
	case protocol == "nvlink" || protocol == "nvlink_intra":
		// "Protocol 'nvlink' requires -DUSE_MNNVL=ON" and no allocator
		// is set (real 0.3.9, 0.3.12.post1, 0.3.13.post1 print the line).
		return "none"
	}
	return ""
}

func (b NVLinkBuffer) String() string {
	return fmt.Sprintf("%#x+%d fabric=%v", b.Addr, b.Length, b.Fabric)
}
