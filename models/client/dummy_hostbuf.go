package client

import (
	"context"
	"fmt"

	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// 0.3.14's DummyClient and buffers outside its shared memory
// (mooncake.Profile.DummyHostBuffers; no source at 0.3.14, measured on its
// wheel, docs/REAL-FINDINGS.md §80): register_buffer accepts one, and the
// batch calls move its bytes without mooncake_client ever seeing its
// address; a buffer outside both fails the batch with INVALID_PARAMS and
// no line. The model moves a registered one through the dummy's local
// buffer, which mooncake_client mapped at setup_dummy.

// registerHostBuffer records a buffer outside every shm that
// register_buffer accepted.
func (c *DummyClient) registerHostBuffer(ptr uint64, size int64) {
	if !c.p.DummyHostBuffers {
		return
	}
	if c.hostBufs == nil {
		c.hostBufs = map[uint64]int64{}
	}
	c.hostBufs[ptr] = size
}

// inHostBuffer reports whether [ptr, ptr+size) lies in one registered
// buffer outside the shm.
func (c *DummyClient) inHostBuffer(ptr uint64, size int64) bool {
	for base, n := range c.hostBufs {
		if ptr >= base && ptr+uint64(size) <= base+uint64(n) {
			return true
		}
	}
	return false
}

// splitHostBuffers sorts a batch's buffers: host[i] for a registered
// buffer outside the shm (moved by the dummy itself), the others' pointers
// and sizes for mooncake_client's lookup. ok is false when
// DummyHostBuffers holds and a buffer is in neither (the whole batch
// fails). Without DummyHostBuffers every buffer goes to mooncake_client.
func (c *DummyClient) splitHostBuffers(ptrs []uint64, sizes []int64) (host []bool, shmPtrs []uint64, shmSizes []int64, ok bool) {
	host = make([]bool, len(ptrs))
	if !c.p.DummyHostBuffers {
		return host, ptrs, sizes, true
	}
	for i, p := range ptrs {
		if _, in := c.d.Mem.FindShm(p); in {
			shmPtrs, shmSizes = append(shmPtrs, p), append(shmSizes, sizes[i])
			continue
		}
		if !c.inHostBuffer(p, sizes[i]) {
			return nil, nil, nil, false
		}
		host[i] = true
	}
	return host, shmPtrs, shmSizes, true
}

// staged moves one key of a registered host buffer through the dummy's
// local buffer: a put copies the bytes in and puts them from there, a get
// reads into it and copies the bytes out.
func (c *DummyClient) staged(ctx context.Context, helper, key string, ptr uint64, size int64) (int, error) {
	if c.local == nil || size > c.local.Size {
		return int(mooncake.INVALID_PARAMS), nil
	}
	if helper == BatchPutFromHelper {
		data, err := c.d.Mem.ReadContent(ptr, size)
		if err != nil {
			return 0, fmt.Errorf("dummy client: batch_put_from %s from host buffer %#x: %w", key, ptr, err)
		}
		c.local.Data.WriteContent(0, data)
		rc, err := c.svc.PutFrom(ctx, c.name, key, c.local.Base, size, nil)
		if err != nil {
			return c.rpcCodeOf(err, "Batch "), nil
		}
		return rc, nil
	}
	n, err := c.svc.GetInto(ctx, c.name, key, c.local.Base, size, nil)
	if err != nil {
		return c.rpcCodeOf(err, "Batch "), nil
	}
	if n <= 0 {
		return n, nil
	}
	if err := c.d.Mem.WriteContent(ptr, c.local.Data.ReadContent(0, int64(n))); err != nil {
		return 0, fmt.Errorf("dummy client: batch_get_into %s into host buffer %#x: %w", key, ptr, err)
	}
	return n, nil
}
