package client

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// hugepageSize is get_hugepage_size_from_env's default (2 MiB; the 1 GiB
// MC_STORE_HUGEPAGE_SIZE is not modelled).
const hugepageSize = 2 << 20

// useHugepage: MC_STORE_USE_HUGEPAGE is read from 0.3.8.post1 (utils.h);
// real 0.3.7.post2 ignores it (docs/REAL-FINDINGS.md §140).
func useHugepage(p mooncake.Profile, env map[string]string) bool {
	v, ok := env["MC_STORE_USE_HUGEPAGE"]
	return ok && mooncake.ParseKnob(p.Version, "MC_STORE_USE_HUGEPAGE", v, true).Read
}

// hugepageAlloc is allocate_buffer_mmap_memory with MC_STORE_USE_HUGEPAGE
// set: the arena's opt-in lines at the process's first call (0.3.11+),
// get_hugepage_size_from_env's line, then mmap(MAP_HUGETLB), whose ENOMEM
// on a short HugeTLB pool is logged with the size rounded up to the
// hugepage (utils.cpp v0.3.9:163-180, v0.3.12.post1:364-420).
func (c *RealClient) hugepageAlloc(size int64) (engine.Buffer, error) {
	h := c.p.HugepageMmap
	if h.ArenaOptIn && !c.arenaTried {
		c.arenaTried = true
		// An explicit pool size opts in.
		if raw, ok := c.d.Env["MC_MMAP_ARENA_POOL_SIZE"]; !ok {
			c.logf(mlog.Info, "%s", mooncake.ArenaDisabledLine)
			c.logf(mlog.Info, "%s", mooncake.ArenaOptInLine)
		} else {
			c.arenaInitFailed(raw)
		}
	}
	c.logf(mlog.Info, "Using hugepage size: 2MB")
	buf, err := c.d.Mem.Alloc(engine.AllocHugepage, size)
	if errors.Is(err, hostmem.ErrNoHugepages) {
		c.logf(mlog.Error, "%s, size=%d, errno=12 (Cannot allocate memory)", h.FailedLine, (size+hugepageSize-1)/hugepageSize*hugepageSize)
	}
	return buf, err
}

// localBufferFailed is setup's end when the local buffer's
// ClientBufferAllocator cannot get its memory: the constructor's
// std::bad_alloc goes through setup() to Python (MemoryError) up to
// 0.3.13.post1; 0.3.14 logs and returns -1 (real, setup/hugepage-env-without-pool).
func (c *RealClient) localBufferFailed() (mooncake.ErrorCode, error) {
	if c.p.HugepageMmap.BufferFailReturns {
		c.logf(mlog.Error, "%s", mooncake.ClientBufferFailedLine)
		return mooncake.INTERNAL_ERROR, nil
	}
	return mooncake.OK, &engine.PyError{Class: "MemoryError", Message: "std::bad_alloc"}
}

// arenaInitFailed is initializeGlobalArena with MC_MMAP_ARENA_POOL_SIZE
// set (utils.cpp v0.3.11.post1:128-204, the same at v0.3.12.post1 and
// 3b5a594; real 0.3.11.post1 … 0.3.14): MC_STORE_USE_HUGEPAGE makes MmapArena::initialize strict
// (mmap_arena.cpp v0.3.12.post1:54-111: no regular-page retry), so a pool
// larger than the free HugeTLB pages fails the arena and the direct
// mmap() runs, which needs hugepages too. Only a size in plain bytes is
// read here (string_to_byte_size's units are not modelled), and an arena
// that fits is not modelled (no lines, as before).
func (c *RealClient) arenaInitFailed(raw string) {
	pool, err := strconv.ParseUint(raw, 10, 64)
	if err != nil || pool == 0 {
		return
	}
	aligned := (pool + hugepageSize - 1) / hugepageSize * hugepageSize
	if int64(aligned) <= c.d.Mem.HugepagesFree() {
		return
	}
	c.logf(mlog.Info, "MC_MMAP_ARENA_POOL_SIZE override: %s (%s)", raw, byteSizeString(pool))
	if c.p.HugepageMmap.ArenaHugepageLine {
		c.logf(mlog.Info, "Using hugepage size: 2MB")
	}
	c.logf(mlog.Error, "Arena hugepage mmap failed for pool_size=%d bytes, errno=12 (Cannot allocate memory); regular-page fallback disabled because MC_STORE_USE_HUGEPAGE explicitly requested hugepages", aligned)
	c.logf(mlog.Error, "=== ARENA INITIALIZATION FAILED ===")
	c.logf(mlog.Error, "Falling back to traditional mmap()")
	c.logf(mlog.Error, "MC_STORE_USE_HUGEPAGE is set, so the fallback path will also require hugepages")
	c.logf(mlog.Error, "Arena initialization is only attempted once per process; restart after fixing the environment if you want to retry arena bring-up")
}

// byteSizeString is byte_size_to_string (utils.h v0.3.12.post1:145-170):
// two decimals and the largest unit that fits, bytes below 1 KiB.
func byteSizeString(b uint64) string {
	for _, u := range []struct {
		name string
		size float64
	}{{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}} {
		if float64(b) >= u.size {
			return fmt.Sprintf("%.2f %s", float64(b)/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d B", b)
}
