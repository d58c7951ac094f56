// Package sglang is the integration under test: SGLang's MooncakeStore
// (python/sglang/srt/mem_cache/storage/mooncake_store/mooncake_store.py)
// and the host-pool allocator selection in front of it, written once
// against engine.Store so the same code runs on every engine. Python
// exceptions come back as *engine.PyError with SGLang's exact text; SGLang's
// log lines go to the trace with source "sglang".
package sglang

import (
	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/trace"
)

// StorageConfig is HiCacheStorageConfig: what the cache controller hands
// to MooncakeStore.
type StorageConfig struct {
	TPRank, TPSize       int
	PPRank, PPSize       int
	IsMLAModel           bool
	ModelName            string
	EnableStorageMetrics bool
	// ExtraConfig is --hicache-storage-backend-extra-config (JSON object),
	// after the controller popped tp_lcm_size. nil = not given.
	ExtraConfig map[string]any
}

// HostPoolSpec is the host KV pool SGLang builds before the store.
type HostPoolSpec struct {
	// Layout: "MHA" (k and v buffers: two register_buffer calls), "MLA"
	// (one kv buffer).
	Layout string
	// AllocatorType is what the pool asks get_allocator_from_storage for:
	// "mooncake" (MooncakeHostTensorAllocator, falls back to default on
	// ImportError), "default", "hugepage", "shm"; AllocatorSGLang = what
	// SGLang's pool builder passes at the release (ResolveAllocator).
	AllocatorType string
	// Builder is who builds a main pool: BuilderHiRadix ("" too) or
	// BuilderDecodeOffload. Only AllocatorSGLang reads it.
	Builder string
	// Size is the pool's byte size (k+v together for MHA).
	Size int64
	// Draft, when set, is an EAGLE draft pool registered after the main one
	// (register_mem_host_pool_v2(draft, DRAFT) registers its kv_buffer).
	Draft *HostPoolSpec
	// SharesMain, on a Draft only, makes the draft pool the main pool's
	// tensors (the draft worker handed the target's host pool, or an alias
	// of it): nothing is allocated, and the DRAFT registration registers the
	// main kv_buffer, whose halves k_buffer and v_buffer are already
	// registered — an overlapping region Mooncake refuses (-600). The other
	// fields of such a Draft are ignored.
	SharesMain bool
	// PageSize (tokens per page) and PageBytes (bytes of one page of one
	// component: the k or the v half for MHA, the kv buffer for MLA) give
	// get_page_buffer_meta for batch I/O (page_first layout). Only I/O needs
	// them; zero makes BatchSetV1/BatchGetV1 fail with a harness error.
	PageSize  int
	PageBytes int64
}

// Backends: which SGLang component builds the MooncakeDistributedStore.
const (
	// BackendKV is HiCache's MooncakeStore (mooncake_store.py), the default.
	BackendKV = "kv"
	// BackendDirectLinker is the unified cache's MooncakeDirectLinker
	// (mooncake_direct_linker.py, SGLang 0.5.19+): MooncakeStore with
	// mem_pool=None, then register_buffers() of the GPU KV pool.
	BackendDirectLinker = "direct-linker"
	// BackendEmbedding is the multimodal embedding cache's
	// MooncakeEmbeddingStore (mooncake_embedding_store.py), built by
	// EmbeddingCacheController (--enable-mm-global-cache
	// --mm-global-cache-backend mooncake).
	BackendEmbedding = "embedding"
)

// Launch is one SGLang scheduler start on a node.
type Launch struct {
	World engine.World
	Node  string
	// Env is the process environment (SGLang's MOONCAKE_* and Mooncake's
	// MC_*), placeholders already expanded.
	Env map[string]string
	// Files is the file system SGLang reads config files from (path →
	// content); a path not in it does not exist.
	Files map[string]string
	// Backend is BackendKV ("" means kv) or BackendEmbedding. The embedding
	// store gets no storage config from its controller
	// (MooncakeEmbeddingStore()), so StorageConfig is not used, and its
	// HostPool is the controller's cpu_pool: HostPool.Size bytes of pinned
	// torch memory (default allocator), registered once; the rest of
	// HostPool is not used and batch I/O is not modelled.
	Backend       string
	StorageConfig StorageConfig
	HostPool      HostPoolSpec
	// DeviceKVPool is the GPU KV pool's bytes (k and v buffers, one
	// allocation each, engine.AllocCUDA); only BackendDirectLinker reads it.
	DeviceKVPool int64
	Trace        *trace.Trace
	// Seed derives this process's random choices (the warmup key's uuid4)
	// through math/rand/v2 PCG; same seed, same keys.
	Seed uint64
	// MooncakeVersion is the installed Mooncake (e.g. "0.3.13.post1"). SGLang
	// needs it only to word the pybind11 TypeError of a setup() call whose
	// arguments no binding accepts by type (master_server_address None, a
	// non-str device from JSON...), which engine.SetupArgs cannot carry.
	// Empty: such calls fail with *engine.Unsupported.
	MooncakeVersion string
	// SGLangVersion is the SGLang release the model follows where releases
	// differ ("" = LatestVersion); see VersionAtLeast.
	SGLangVersion string
	// OnReturn, when set, is called with the Mooncake method's name after
	// each Mooncake call of this process returns (the runner arms faults
	// anchored to a call); sides may call it from any goroutine.
	OnReturn func(method string)
}
