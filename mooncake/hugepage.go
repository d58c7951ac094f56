package mooncake

// HugepageMmap is how a release's store client reports a failed
// MAP_HUGETLB mmap of its buffers (MC_STORE_USE_HUGEPAGE set, the host's
// HugeTLB pool short): allocate_buffer_mmap_memory's line, and what the
// local buffer's ClientBufferAllocator does then. Read at the tags, each
// measured on the wheels 0.3.8.post1 … 0.3.14 (docs/REAL-FINDINGS.md §92,
// setup/hugepage-env-without-pool).
type HugepageMmap struct {
	// FailedLine is the ERROR prefix before "size=N, errno=E (text)":
	// "Hugepage mmap failed" up to v0.3.10.post2 (utils.cpp v0.3.9:176),
	// "mmap failed" from v0.3.11 (utils.cpp v0.3.12.post1:418, the
	// arena's fallback path).
	FailedLine string
	// ArenaOptIn: the first allocate_buffer_mmap_memory of a process runs
	// initializeGlobalArena, which logs that the arena is opt-in (INFO,
	// utils.cpp v0.3.11:144-150, v0.3.12.post1:172-178) unless
	// --use_mmap_arena_allocator or MC_MMAP_ARENA_POOL_SIZE asks for it.
	ArenaOptIn bool
	// BufferFailReturns: 0.3.14's setup logs ClientBufferFailedLine and
	// returns -1 when the local buffer cannot be allocated (real; no
	// source here). Before, ClientBufferAllocator's constructor throws
	// std::bad_alloc (client_buffer.cpp v0.3.9:44, v0.3.12.post1:61),
	// which setup() lets through: Python's MemoryError.
	BufferFailReturns bool
	// ArenaHugepageLine: an arena asked for (MC_MMAP_ARENA_POOL_SIZE) logs
	// "Using hugepage size: 2MB" once more, after its pool size, before its
	// mmap (real 0.3.14, no source here; 0.3.11.post1 … 0.3.13.post1 do
	// not: initializeGlobalArena calls get_hugepage_size_from_env without
	// flags, utils.cpp v0.3.12.post1:191; setup/hugepage-arena-without-pool).
	ArenaHugepageLine bool
}

// ClientBufferFailedLine is 0.3.14's ERROR when setup cannot allocate the
// local buffer (real 0.3.14, MC_STORE_USE_HUGEPAGE without a pool).
const ClientBufferFailedLine = "Failed to allocate client buffer memory (NoF DMA allocator unavailable or out of memory; check the hugepage/SPDK environment)"

// Arena opt-in lines (utils.cpp v0.3.12.post1:172, :177-178).
const (
	ArenaDisabledLine = "=== ARENA ALLOCATOR DISABLED ==="
	ArenaOptInLine    = "Arena is opt-in; set --use_mmap_arena_allocator or MC_MMAP_ARENA_POOL_SIZE to enable it"
)

func hugepageMmapFor(at func(string) bool) HugepageMmap {
	h := HugepageMmap{FailedLine: "Hugepage mmap failed", ArenaOptIn: at("0.3.11"), BufferFailReturns: at("0.3.14"), ArenaHugepageLine: at("0.3.14")}
	if at("0.3.11") {
		h.FailedLine = "mmap failed"
	}
	return h
}
