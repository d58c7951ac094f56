package explore

import (
	"regexp"

	"github.com/mooncake-faultlab/faultlab/mooncake"
	"strings"
	"sync"
)

// Text is one exception SGLang can raise at startup or during HiCache I/O
// against Mooncake: its class, the exact message as a pattern, and where
// the text comes from. The "texts" invariant allows no other.
type Text struct {
	Class   string
	Pattern string // anchored regular expression over the whole message
	Source  string
}

const num = `-?[0-9]+`

// Texts is the one table of exception texts SGLang and Mooncake produce.
var Texts = []Text{
	// SGLang python/sglang/srt/mem_cache/storage/mooncake_store/mooncake_store.py
	{"RuntimeError", `Failed to setup Mooncake store, error code: ` + num, "sglang mooncake_store.py MooncakeStore.__init__: ret_code check after setup()/setup_dummy()"},
	{"RuntimeError", `Failed to register buffer to Mooncake Store, error code: ` + num, "sglang mooncake_store.py register_buffer"},
	{"TypeError", `Mooncake Store Register Buffer Error\.`, "sglang mooncake_store.py register_mem_pool_host: TypeError re-raised"},
	{"RuntimeError", `Mooncake store is not initialized\.`, "sglang mooncake_store.py register_mem_pool_host"},
	{"RuntimeError", `\[TP[0-9]+\] Warmup put failed after [0-9]+ attempts, Transfer Engine might not be ready`, "sglang mooncake_store.py warmup()"},
	{"RuntimeError", regexp.QuoteMeta("MooncakeStore with standalone_storage=True requires MooncakeHostTensorAllocator. Please set standalone_storage=False or upgrade Mooncake by 'pip install mooncake-transfer-engine --upgrade'."), "sglang mooncake_store.py __init__ standalone branch"},
	{"RuntimeError", regexp.QuoteMeta("The installed Mooncake version does not support tenant_id in MooncakeDistributedStore.setup(). Please upgrade Mooncake to use non-default Mooncake tenants with SGLang."), "sglang mooncake_store.py kwarg fallback loop (tenant_id)"},
	// sglang mooncake_direct_linker.py (0.5.19+): GPU KV buffers.
	{"RuntimeError", `Failed to register GPU KV buffer with Mooncake, error code: ` + num + `\.`, "sglang mooncake_direct_linker.py register_buffers"},
	{"AttributeError", regexp.QuoteMeta("'NoneType' object has no attribute 'allocator'"), "sglang mooncake_store.py standalone branch with the direct linker's mem_pool=None"},
	{"ValueError", `Failed to create storage backend: .*`, "sglang hicache_storage.py StorageBackendFactory.create_backend wraps the backend's error"},
	{"ValueError", regexp.QuoteMeta("Either master_server_address or client_server_address is required in extra_config"), "sglang mooncake_store.py MooncakeStoreConfig.load_from_extra_config"},
	{"ValueError", regexp.QuoteMeta("Either the environment variable 'MOONCAKE_MASTER' or 'MOONCAKE_CLIENT' is not set."), "sglang mooncake_store.py MooncakeStoreConfig.load_from_env"},
	{"ValueError", `Either (master_server_address|the environment variable|MOONCAKE_MASTER).*`, "sglang mooncake_store.py MooncakeStoreConfig.from_file (missing address keys)"},
	{"RuntimeError", `Config file path not set\. Please set SGLANG_HICACHE_MOONCAKE_CONFIG_PATH`, "sglang mooncake_store.py MooncakeStoreConfig.from_file"},
	{"RuntimeError", `Failed to load config from .*`, "sglang mooncake_store.py MooncakeStoreConfig.from_file (open/json.load failure)"},
	{"ValueError", `Invalid global_segment_size: .*`, "sglang mooncake_store.py _parse_global_segment_size"},
	{"ValueError", `invalid literal for int\(\) with base 10: .*`, "CPython int() on a segment size string (via _parse_global_segment_size)"},
	{"ValueError", `could not convert string to float: .*`, "CPython float() on a segment size string (via _parse_global_segment_size)"},
	{"ValueError", `cannot convert float NaN to integer`, "CPython int(float('nan'))"},
	{"OverflowError", `cannot convert float infinity to integer`, "CPython int(float('inf'))"},
	{"TypeError", `int\(\) argument must be a string, a bytes-like object or a real number, not '.*'`, "CPython int() on a JSON value of the wrong type"},
	{"AttributeError", `'[a-zA-Z_]+' object has no attribute '(get|split|strip)'`, "CPython: config values of the wrong JSON type (mooncake_store.py .split/.strip/.get)"},
	{"TypeError", `argument of type '[a-zA-Z_]+' is not iterable`, "CPython: `in` on a non-dict config file"},
	{"AssertionError", ``, "sglang mooncake_store.py asserts (batch preprocess, warmup get)"},
	// pybind11 argument errors of Mooncake's bindings (store_py.cpp).
	{"TypeError", `(?s)setup\(\): incompatible function arguments\. The following argument types are supported:.*`, "pybind11 + Mooncake store_py.cpp setup() signature of that version"},
	{"TypeError", `(?s)setup_dummy\(\): incompatible function arguments\..*`, "pybind11 + Mooncake store_py.cpp setup_dummy()"},
	{"TypeError", `(?s)register_buffer\(\): incompatible function arguments\..*`, "pybind11 + Mooncake store_py.cpp register_buffer()"},
	{"AttributeError", `'(mooncake\.store\.)?MooncakeDistributedStore' object has no attribute '[a-z_]+'`, "pybind11: a method the installed Mooncake lacks (health_check < 0.3.10, setup_dummy < 0.3.8)"},
	{"ImportError", `cannot import name 'MooncakeHostMemAllocator' from 'mooncake\.store' .*`, "Python import of MooncakeHostMemAllocator on Mooncake < 0.3.8"},
	{"ValueError", `stoi`, "Mooncake client_service.cpp get_auto_discover: std::stoi's invalid_argument through pybind11, MC_MS_AUTO_DISC not a number (v0.3.0 … v0.3.11.post1; real 0.3.11.post1)"},
	{"ValueError", `Invalid FileStorage configuration`, "Mooncake real_client.cpp: enable_ssd_offload with a bad path"},
	{"RuntimeError", `Key and value size mismatch`, "Mooncake store_py.cpp batch_put_from/batch_get_into length check"},
	// Host memory (torch / Mooncake allocator).
	{"OSError", regexp.QuoteMeta("[Errno 12] Cannot allocate memory"), "torch pinned/hugepage allocation failure"},
	{"RuntimeError", regexp.QuoteMeta("Failed to create anonymous shared memory (Check /proc/sys/vm/nr_hugepages?)"), "Mooncake MooncakeHostMemAllocator (memfd with MFD_HUGETLB)"},
	{"RuntimeError", regexp.QuoteMeta("[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate ") + num + regexp.QuoteMeta(" bytes. Error code 12 (Cannot allocate memory)"), "torch.empty beyond RAM (overcommit heuristic; real torch, SGLang 0.5.23 venv)"},
	{"RuntimeError", regexp.QuoteMeta("Failed to map shared memory: Cannot allocate memory"), "Mooncake shm_helper.cpp ShmHelper::allocate mmap beyond the address space"},
	{"MemoryError", regexp.QuoteMeta("std::bad_alloc"), "Mooncake client_buffer.cpp ClientBufferAllocator: the local buffer's MAP_HUGETLB mmap failed (MC_STORE_USE_HUGEPAGE, no hugepages), v0.3.8.post1 … 0.3.13.post1 (real; REAL-FINDINGS §92)"},
	// The embedding cache's store (mooncake_embedding_store.py).
	{"RuntimeError", `Failed to setup Mooncake Embedding Store: ` + num, "sglang mooncake_embedding_store.py"},
}

var compileTexts = sync.OnceValue(func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(Texts))
	for i, t := range Texts {
		out[i] = regexp.MustCompile(`^(?:` + t.Pattern + `)$`)
	}
	return out
})

// KnownText returns the table row an exception matches, if any.
func KnownText(class, message string) (Text, bool) {
	res := compileTexts()
	for i, t := range Texts {
		if t.Class == class && res[i].MatchString(strings.TrimSpace(message)) {
			return t, true
		}
	}
	return Text{}, false
}

// KnownDeath says whether Mooncake is known to kill the process this way at
// this version: 0.3.9 segfaults in its auto-port loop against a refused
// master (real wheel, docs/REAL-FINDINGS.md), 0.3.10.x when memcpy reads
// another process's replica on the same IP (§83); Mooncake < 0.3.6 aborts (glog
// CHECK) when its transfer engine cannot start (transfer_engine.cpp);
// Mooncake < 0.3.12 exits 1 at import on an invalid MC_MTU (config.cpp).
// how is a signal or "exit N" (scenarios.Death.How).
func KnownDeath(how, version string) (string, bool) {
	v, err := mooncake.ParseVersion(version)
	if err != nil {
		return "", false
	}
	switch {
	case how == "SIGSEGV" && v.Compare(mooncake.MustVersion("0.3.9")) == 0:
		return "real 0.3.9 wheel: SIGSEGV at auto-port retry 8 against a refused master", true
	case how == "SIGSEGV" && v.AtLeast("0.3.10") && !v.AtLeast("0.3.11"):
		return "real 0.3.10.post1/0.3.10.post2 wheels: MemcpyWorkerPool copies from another process's replica on the same IP (REAL-FINDINGS §83)", true
	case how == "SIGABRT" && !v.AtLeast("0.3.6"):
		return "Mooncake < 0.3.6: CHECK failure when the transfer engine cannot start", true
	case how == "exit 1" && !v.AtLeast("0.3.12"):
		return "Mooncake < 0.3.12: exit(EXIT_FAILURE) in globalConfig() on an invalid MC_MTU (real 0.3.4 … 0.3.11.post1 wheels)", true
	}
	return "", false
}
