package sglang

import (
	"strconv"
	"strings"
)

// Release gates: the first PyPI release of SGLang whose code the model
// follows for a behaviour (read in the wheels' mooncake_store.py and
// pool_host/mha.py; docs/ENGINES.md, "Which SGLang").
const (
	// MHA host pools expose get_hybrid_pool_buffer() = [k_buffer, v_buffer]
	// (register_mem_pool_host registers the two halves and the standalone
	// size counts kv + v); before, the whole kv_buffer once.
	versionKVHalves = "0.5.21"
	// MooncakeStoreConfig._resolve_local_hostname: env first, then a truthy
	// config value, then "localhost" — a null local_hostname in a config
	// file no longer reaches setup() (absent from the 0.5.20 wheel; real
	// SGLang 0.5.23 against setup/missing-config-none, 2026-12-01).
	versionResolveHostname = "0.5.21"
	// ssd_offload_path gets a per-rank subdirectory rank_{dp}_{tp}_{pp}_{cp},
	// created with os.makedirs.
	versionSSDRankDir = "0.5.21"
	// global_segment_size is split by tp_size * pp_size (before: tp_size);
	// 0.5.19 has it, 0.5.17 not, 0.5.18 was not checked.
	versionSegmentPerPP = "0.5.19"
	// The embedding store is built through EmbeddingStoreFactory, which
	// logs EmbeddingFactoryLog (0.5.19 has it, 0.5.17 not, 0.5.18 not checked).
	versionEmbeddingFactory = "0.5.19"
	// tenant_id is read from the config, passed to setup() and checked;
	// the config prefix is extra_backend_tag plus the model name ("Using
	// Mooncake config prefix: ..."). Before: no tenant_id, and
	// extra_backend_tag alone ("Using extra_backend_tag: ...").
	versionTenant = "0.5.17"
	// The standalone allocator check's text names mooncake-transfer-engine
	// (0.5.14: 'pip install mooncake --upgrade').
	versionStandaloneTextTE = "0.5.15"
	// kv_cache_builder builds the EAGLE draft host pool with
	// allocator_type=server_args.hicache_storage_backend; 0.5.13 and 0.5.14
	// pass none (the default allocator) although the controller registers
	// the draft pool with the storage since 0.5.13 (sglang PR #24984;
	// sglang#28873).
	versionDraftAllocator = "0.5.15"
	// DecodeKVCacheOffloadManager builds its host pool with
	// get_allocator_type(server_args); up to 0.5.16 with none (the default
	// allocator), so standalone storage refuses it.
	versionDecodeOffloadAllocator = "0.5.17"
	// The unified cache's MooncakeDirectLinker registers GPU KV buffers with
	// the store (mooncake_direct_linker.py: absent from the 0.5.18 wheel,
	// present from 0.5.19).
	versionDirectLinker = "0.5.19"
)

// Allocator choices of a HostPoolSpec beyond get_allocator_from_storage's.
const (
	// AllocatorSGLang is what SGLang's own code asks for at the release
	// (ResolveAllocator).
	AllocatorSGLang = "sglang"
	// BuilderHiRadix (HiRadixCache, the default) and BuilderDecodeOffload
	// (the PD decode side's DecodeKVCacheOffloadManager) build the main
	// host pool.
	BuilderHiRadix       = "hiradix"
	BuilderDecodeOffload = "decode-offload"
)

// ResolveAllocator is the allocator_type SGLang's own code passes for a
// pool at release ("" = LatestVersion) with the storage backend
// "mooncake": HiRadixCache passes hicache_storage_backend; the draft pool
// and the decode-offload pool pass it only from the releases above. Any
// other AllocatorType is the scenario's own choice and returned as is.
func ResolveAllocator(spec HostPoolSpec, draft bool, release string) string {
	if spec.AllocatorType != AllocatorSGLang {
		return spec.AllocatorType
	}
	l := Launch{SGLangVersion: release}
	switch {
	case draft && !l.atLeast(versionDraftAllocator):
		return "default"
	case !draft && spec.Builder == BuilderDecodeOffload && !l.atLeast(versionDecodeOffloadAllocator):
		return "default"
	}
	return "mooncake"
}

// ForRelease is the pool (and its draft) with AllocatorSGLang resolved for
// release: what a side that builds the pools itself (real SGLang's driver)
// hands to get_allocator_from_storage.
func (spec HostPoolSpec) ForRelease(release string) HostPoolSpec {
	spec.AllocatorType = ResolveAllocator(spec, false, release)
	if spec.Draft != nil {
		d := *spec.Draft
		d.AllocatorType = ResolveAllocator(d, true, release)
		spec.Draft = &d
	}
	return spec
}

// atLeast reports whether this launch's SGLang release is min or newer
// ("" = LatestVersion).
func (l Launch) atLeast(min string) bool {
	v := l.SGLangVersion
	if v == "" {
		v = LatestVersion
	}
	return compareRelease(v, min) >= 0
}

// compareRelease orders dotted releases numerically ("0.5.9" < "0.5.17");
// a ".postN" suffix sorts after its base.
func compareRelease(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(as), len(bs)); i++ {
		x, y := releasePart(as, i), releasePart(bs, i)
		if x != y {
			return x - y
		}
	}
	return 0
}

func releasePart(parts []string, i int) int {
	if i >= len(parts) {
		return -1
	}
	p := strings.TrimPrefix(parts[i], "post")
	n, err := strconv.Atoi(p)
	if err != nil {
		return 0
	}
	return n
}

// TorchCUDARuntime is the CUDA runtime SGLang's process has loaded before
// it imports mooncake: every release modelled pins a torch built for CUDA
// 13 (torch 2.11.0 / 2.14.1 with nvidia-cuda-runtime 13.0.96,
// realengine/sglangreqs), and `import torch` loads libcudart.so.13 also
// on a host without a GPU (torch 2.14.1+cu130, 2026-12-02). A wheel that
// links it (0.3.14's cuda13 wheel) then imports in SGLang's process
// although the host's LD_LIBRARY_PATH lacks it; libcudart.so.12 (the
// 0.3.12.post1 wheel, Mooncake#1298's CUDA 13 host) stays missing.
const TorchCUDARuntime = "libcudart.so.13"
