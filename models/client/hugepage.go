package client

import (
	"errors"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// hugepageSize is get_hugepage_size_from_env's default (2 MiB; the 1 GiB
// MC_STORE_HUGEPAGE_SIZE is not modelled).
const hugepageSize = 2 << 20

// hugepageAlloc is allocate_buffer_mmap_memory with MC_STORE_USE_HUGEPAGE
// set: the arena's opt-in lines at the process's first call (0.3.11+),
// get_hugepage_size_from_env's line, then mmap(MAP_HUGETLB), whose ENOMEM
// on a short HugeTLB pool is logged with the size rounded up to the
// hugepage (utils.cpp v0.3.9:163-180, v0.3.12.post1:364-420).
func (c *RealClient) hugepageAlloc(size int64) (engine.Buffer, error) {
	h := c.p.HugepageMmap
	if h.ArenaOptIn && !c.arenaTried {
		c.arenaTried = true
		// An explicit pool size opts in (the arena itself is not modelled:
		// then no opt-in lines).
		if _, ok := c.d.Env["MC_MMAP_ARENA_POOL_SIZE"]; !ok {
			c.logf(mlog.Info, "%s", mooncake.ArenaDisabledLine)
			c.logf(mlog.Info, "%s", mooncake.ArenaOptInLine)
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
