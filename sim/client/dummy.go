package client

import (
	"context"
	"fmt"
	"strings"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/sim/hostmem"
	"github.com/mooncake-faultlab/faultlab/sim/mlog"
)

// DummyClient is MooncakeDistributedStore after setup_dummy()
// (dummy_client.cpp): every call goes over RPC to mooncake_client; buffers
// must be MooncakeHostMemAllocator shm. Failures are literal -1.
type DummyClient struct {
	d      Deps
	p      mooncake.Profile
	name   string
	svc    RealClientService
	local  *hostmem.Shm
	reg    map[uint64]bool // shm base → registered with the real client
	up     bool
	closed bool
	pingOK bool
}

// NewDummyClient prepares a dummy client named name (unique per process).
func NewDummyClient(d Deps, name string) *DummyClient {
	if d.Log == nil {
		d.Log = mlog.Discard{}
	}
	return &DummyClient{d: d, p: d.Profile, name: name, reg: map[uint64]bool{}}
}

func (c *DummyClient) logf(level, format string, a ...any) {
	c.d.Log.Log(level, fmt.Sprintf(format, a...))
}

// noAttr is the AttributeError pybind11 raises for a method this version
// does not bind.
func noAttr(name string) error {
	return &engine.PyError{Class: "AttributeError", Message: fmt.Sprintf("'%s' object has no attribute '%s'", mooncake.StoreClass, name)}
}

// SetupDummy is setup_dummy(mem_pool_size, local_buffer_size, server_address);
// mem_pool_size is unused, as in Mooncake.
func (c *DummyClient) SetupDummy(ctx context.Context, memPoolSize, localBufferSize int64, serverAddress string) (int, error) {
	if !c.p.DummyClient {
		return 0, noAttr("setup_dummy")
	}
	if c.d.Clients == nil {
		return 0, fmt.Errorf("dummy client: no mooncake_client transport wired")
	}
	c.svc = c.d.Clients.RealClient(serverAddress, timeoutsFromEnv(c.p, c.d.Env))
	if err := c.svc.ServiceReady(ctx); err != nil {
		rpcLog(c.d.Log, c.p, "Dummy ", err)
		c.logf(mlog.Error, "Failed to connect to real client")
		return -1, nil
	}
	buf, err := c.d.Mem.Alloc(engine.AllocMooncakeShm, localBufferSize)
	if err != nil {
		c.logf(mlog.Error, "Failed to allocate shared memory: %v", err)
		return -1, nil
	}
	shm, _ := c.d.Mem.FindShm(buf.Ptr)
	port := ""
	if i := strings.LastIndexByte(serverAddress, ':'); i >= 0 {
		port = serverAddress[i+1:]
	}
	c.logf(mlog.Info, "Connecting to IPC socket: @mooncake_client_%s.sock", port)
	if rc, err := c.svc.RegisterShm(ctx, c.name, *shm, true); err != nil || rc != 0 {
		c.logf(mlog.Error, "Failed to register SHM via IPC")
		_ = c.d.Mem.Free(buf.Ptr)
		return -1, nil
	}
	c.logf(mlog.Info, "Successfully registered SHM via IPC, base: %#x", shm.Base)
	if c.p.HotCacheFdExchange {
		// The hot-cache fd exchange (real 0.3.13.post1 against its own
		// mooncake_client) fails harmlessly.
		c.logf(mlog.Error, "Failed to receive hot cache fd, status=-1")
		c.logf(mlog.Info, "Hot cache shm not available (real client may not have it)")
	}
	c.local = shm
	c.reg[shm.Base] = true
	c.up = true
	return 0, nil
}

// Heartbeat is one ping_thread_main iteration (1 s period); it reports
// the wait before the next one.
func (c *DummyClient) Heartbeat(ctx context.Context) {
	if !c.up || c.closed {
		return
	}
	c.pingOK = c.svc.Ping(ctx, c.name) == nil
}

// Pinging reports whether the ping thread runs.
func (c *DummyClient) Pinging() bool { return c.up && !c.closed }

// RegisterBuffer is DummyClient::register_buffer.
func (c *DummyClient) RegisterBuffer(ctx context.Context, ptr uint64, size int64) (int, error) {
	shm, ok := c.findShm(ptr)
	if !ok {
		return -1, nil
	}
	if _, huge := c.d.Env["MC_STORE_USE_HUGEPAGE"]; huge {
		const hp = 2 << 20
		size = (size + hp - 1) / hp * hp
	}
	if ptr != shm.Base || size != shm.Size {
		c.logf(mlog.Error, "Invalid buffer address or size for registration: Buffer addr: %#x, need addr: %#x, buffer size: %d, need size: %d", ptr, shm.Base, size, shm.Size)
		return -1, nil
	}
	if !c.reg[shm.Base] {
		if !c.up {
			c.logf(mlog.Error, "Failed to implicitly register new SHM via IPC")
			return -1, nil
		}
		if rc, err := c.svc.RegisterShm(ctx, c.name, *shm, false); err != nil || rc != 0 {
			c.logf(mlog.Error, "Failed to implicitly register new SHM via IPC")
			return -1, nil
		}
		c.reg[shm.Base] = true
	}
	return 0, nil
}

// findShm is the pointer check register and unregister start with: the
// shm segment ptr lies in, or false after logging why there is none.
func (c *DummyClient) findShm(ptr uint64) (*hostmem.Shm, bool) {
	if ptr == 0 {
		c.logf(mlog.Error, "Invalid buffer pointer")
		return nil, false
	}
	shm, ok := c.d.Mem.FindShm(ptr)
	if !ok {
		c.logf(mlog.Error, "Buffer is not in any registered shared memory")
	}
	return shm, ok
}

// UnregisterBuffer is DummyClient::unregister_buffer.
func (c *DummyClient) UnregisterBuffer(_ context.Context, ptr uint64) (int, error) {
	shm, ok := c.findShm(ptr)
	if !ok {
		return -1, nil
	}
	if !c.reg[shm.Base] {
		c.logf(mlog.Error, "Buffer is not registered with RealClient")
		return -1, nil
	}
	delete(c.reg, shm.Base)
	return 0, nil
}

func (c *DummyClient) rpcCode(err error) int {
	rpcLog(c.d.Log, c.p, "Dummy ", err)
	return int(codeOf(err, c.p))
}

// Put is put(key, value): the value goes through the local buffer shm.
func (c *DummyClient) Put(ctx context.Context, key string, value []byte) (int, error) {
	if !c.up || c.local == nil || int64(len(value)) > c.local.Size {
		return -1, nil
	}
	c.local.Data.Write(0, value)
	rc, err := c.svc.PutFrom(ctx, c.name, key, c.local.Base, int64(len(value)))
	if err != nil {
		return c.rpcCode(err), nil
	}
	return rc, nil
}

// Get is get(key): b"" on failure.
func (c *DummyClient) Get(ctx context.Context, key string) ([]byte, error) {
	if !c.up || c.local == nil {
		return []byte{}, nil
	}
	n, err := c.svc.GetInto(ctx, c.name, key, c.local.Base, c.local.Size)
	if err != nil || n < 0 {
		if err != nil {
			c.rpcCode(err)
		}
		return []byte{}, nil
	}
	return c.local.Data.Read(0, int64(n)), nil
}

// IsExist is is_exist(key).
func (c *DummyClient) IsExist(ctx context.Context, key string) (int, error) {
	if !c.up {
		return -1, nil
	}
	rc, err := c.svc.IsExist(ctx, key)
	if err != nil {
		return c.rpcCode(err), nil
	}
	return rc, nil
}

// BatchIsExist is batch_is_exist(keys): -1 per key on failure.
func (c *DummyClient) BatchIsExist(ctx context.Context, keys []string) ([]int, error) {
	out := make([]int, len(keys))
	for i, k := range keys {
		rc, err := c.svc.IsExist(ctx, k)
		if err != nil || !c.up {
			out[i] = -1
			continue
		}
		out[i] = rc
	}
	return out, nil
}

// BatchPutFrom is batch_put_from: pointers are dummy addresses in shm.
func (c *DummyClient) BatchPutFrom(ctx context.Context, keys []string, ptrs []uint64, sizes []int64) ([]int, error) {
	return c.batch(ctx, keys, ptrs, sizes, RealClientService.PutFrom)
}

// BatchGetInto is batch_get_into.
func (c *DummyClient) BatchGetInto(ctx context.Context, keys []string, ptrs []uint64, sizes []int64) ([]int, error) {
	return c.batch(ctx, keys, ptrs, sizes, RealClientService.GetInto)
}

// batch runs op (a method expression, so c.svc is read only per key) for
// each key; an RPC failure is that key's code.
func (c *DummyClient) batch(ctx context.Context, keys []string, ptrs []uint64, sizes []int64,
	op func(svc RealClientService, ctx context.Context, dummy, key string, ptr uint64, size int64) (int, error)) ([]int, error) {
	if err := checkBatch(keys, ptrs, sizes); err != nil {
		return nil, err
	}
	out := make([]int, len(keys))
	for i, k := range keys {
		rc, err := op(c.svc, ctx, c.name, k, ptrs[i], sizes[i])
		if err != nil {
			rc = c.rpcCode(err)
		}
		out[i] = rc
	}
	return out, nil
}

// HealthCheck is health_check(): 2 until a ping to mooncake_client has
// succeeded (real 0.3.13.post1 right after setup_dummy answered 2).
func (c *DummyClient) HealthCheck(context.Context) (int, error) {
	if !c.p.HealthCheck {
		return 0, noAttr("health_check")
	}
	switch {
	case !c.up || c.closed:
		return 1, nil
	case !c.pingOK:
		return 2, nil
	}
	return 0, nil
}

// GetHostname is get_hostname(): "" for a dummy.
func (c *DummyClient) GetHostname(context.Context) (string, error) { return "", nil }

// Kill is the process dying: the ping thread stops.
func (c *DummyClient) Kill() { c.closed = true }

// Close is close().
func (c *DummyClient) Close(context.Context) (int, error) {
	c.closed = true
	return 0, nil
}
