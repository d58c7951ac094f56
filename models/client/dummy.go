package client

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// DummyClient is MooncakeDistributedStore after setup_dummy()
// (dummy_client.cpp): every call goes over RPC to mooncake_client; buffers
// must be MooncakeHostMemAllocator shm. Failures are literal -1.
type DummyClient struct {
	d     Deps
	p     mooncake.Profile
	name  string
	svc   RealClientService
	local *hostmem.Shm
	reg   map[uint64]bool // shm base → registered with the real client
	// hostBufs are the buffers outside every shm register_buffer accepted
	// (base → size; mooncake.Profile.DummyHostBuffers).
	hostBufs map[uint64]int64
	up       bool
	closed   bool
	pingOK   bool
	// connected is connected_: false after one failed ping, until the
	// reconnection loop re-registers the shm and a ping succeeds; calls
	// fail fast meanwhile ("Dummy Client not connected", RPC_FAIL).
	connected bool
	// retryIn counts the heartbeats (1 s) before the next reconnection
	// attempt (retry_connect_interval_ms = 2000).
	retryIn int
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
func noAttr(p mooncake.Profile, name string) error {
	return &engine.PyError{Class: "AttributeError", Message: p.NoAttributeError(name)}
}

// SetupDummy is setup_dummy(mem_pool_size, local_buffer_size, server_address);
// mem_pool_size is unused, as in Mooncake.
func (c *DummyClient) SetupDummy(ctx context.Context, memPoolSize, localBufferSize int64, serverAddress string) (int, error) {
	if !c.p.DummyClient {
		return 0, noAttr(c.p, "setup_dummy")
	}
	if c.d.Clients == nil {
		return 0, fmt.Errorf("dummy client: no mooncake_client transport wired")
	}
	// DummyClient() builds its client pools from pool_conf{}: coro_rpc's
	// default 30 s connect and request timeouts; MC_RPC_TIMEOUT_MS is read
	// by MasterClient only (master_client.h, 0.3.12+).
	c.svc = c.d.Clients.RealClient(serverAddress, DefaultTimeouts)
	if err := c.svc.ServiceReady(ctx); err != nil {
		c.rpcCode(err)
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
	if rc, err := c.registerShm(ctx, *shm, true); err != nil || rc != 0 {
		var refused IPCRefused
		if errors.As(err, &refused) {
			if c.p.IPCConnectErrorLogged {
				sock := fmt.Sprintf("@mooncake_client_%s.sock", port)
				c.logf(mlog.Error, "Failed to connect IPC socket '%s': Failed to connect UDS socket '%s': %s", sock, sock, refused)
			}
		}
		c.logf(mlog.Error, "Failed to register SHM via IPC")
		// ShmHelper::free logs each segment it unmaps.
		c.logf(mlog.Info, "Freed shared memory at %#x, size: %d", shm.Base, shm.Size)
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
	// last_ping_healthy_ starts false (dummy_client.h): health_check() is 2
	// until the ping thread's first ping, which it sends at once.
	c.up, c.connected = true, true
	return 0, nil
}

// registerShm is register_shm_via_ipc's exchange: the memfd sent, the
// status mooncake_client answers; a status other than 0 is logged
// (dummy_client.cpp v0.3.8 :334 … v0.3.12.post1 :420).
func (c *DummyClient) registerShm(ctx context.Context, shm hostmem.Shm, isLocal bool) (int, error) {
	rc, err := c.svc.RegisterShm(ctx, c.name, shm, isLocal)
	if err == nil && rc != 0 {
		c.logf(mlog.Error, "RealClient failed to map shared memory, error code: %d", rc)
	}
	return rc, err
}

// Heartbeat is one ping_thread_main iteration (1 s period); it reports
// the wait before the next one.
//
// ping_thread_main (dummy_client.cpp, 0.3.8–0.3.12.post1): one failed
// ping (max_ping_fail_count = 1) drops the connection and starts the
// reconnection loop: re-register every shm (what mooncake_client still
// maps is skipped), ping, and on failure wait 2 s.
func (c *DummyClient) Heartbeat(ctx context.Context) {
	if !c.up || c.closed {
		return
	}
	if c.connected {
		c.pingOK = c.svc.Ping(ctx, c.name) == nil
		if c.pingOK {
			return
		}
		c.logf(mlog.Warning, "Ping failed 1/1")
		c.connected = false
		c.logf(mlog.Error, "RealClient lost, entering reconnection loop...")
		c.reconnect(ctx)
		return
	}
	if c.retryIn > 0 {
		c.retryIn--
		return
	}
	c.reconnect(ctx)
}

// reconnect is one attempt of the reconnection loop.
func (c *DummyClient) reconnect(ctx context.Context) {
	ok := true
	for _, base := range slices.Sorted(maps.Keys(c.reg)) {
		shm, found := c.d.Mem.FindShm(base)
		if !found {
			continue
		}
		if rc, err := c.registerShm(ctx, *shm, c.local != nil && base == c.local.Base); err != nil || rc != 0 {
			c.logf(mlog.Warning, "Failed to re-register shared memory during reconnection")
			ok = false
			break
		}
	}
	if ok {
		c.logf(mlog.Info, "Re-registered all shared memorys successfully")
		if c.svc.Ping(ctx, c.name) == nil {
			c.logf(mlog.Info, "RPC connection restored")
			c.connected, c.pingOK = true, true
			return
		}
	}
	c.logf(mlog.Warning, "Reconnection attempt failed, retrying in 2000ms")
	c.retryIn = 1
}

// notConnected is invoke_rpc's check before any call but the
// registration ones.
func (c *DummyClient) notConnected() bool {
	if c.connected {
		return false
	}
	c.logf(mlog.Error, "Dummy Client not connected")
	return true
}

// Pinging reports whether the ping thread runs.
func (c *DummyClient) Pinging() bool { return c.up && !c.closed }

// RegisterBuffer is DummyClient::register_buffer.
func (c *DummyClient) RegisterBuffer(ctx context.Context, ptr uint64, size int64) (int, error) {
	if c.p.DummyRegisterOutsideShm && ptr != 0 {
		if _, in := c.d.Mem.FindShm(ptr); !in {
			c.registerHostBuffer(ptr, size)
			return 0, nil
		}
	}
	shm, ok := c.findShm(ptr)
	if !ok {
		return -1, nil
	}
	if useHugepage(c.p, c.d.Env) {
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
		if rc, err := c.registerShm(ctx, *shm, false); err != nil || rc != 0 {
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

// rpcCode is DummyClient::invoke_rpc's failure path (dummy_client.cpp,
// 0.3.8–0.3.12.post1): every transport error is RPC_FAIL, logged as
// "Dummy Client not available" (no connection) or "RPC call failed: <msg>"
// (never MasterClient's "RPC call timed out").
func (c *DummyClient) rpcCode(err error) int { return c.rpcCodeOf(err, "") }

// rpcCodeOf is rpcCode for invoke_rpc (prefix "") or invoke_batch_rpc
// ("Batch ": "Batch RPC call failed: Connection timed out", real 0.3.9).
func (c *DummyClient) rpcCodeOf(err error, prefix string) int {
	re, ok := master.AsRPCError(err)
	if !ok {
		return int(codeOf(err, c.p))
	}
	switch re.Kind {
	case master.Refused, master.Unreachable:
		c.logf(mlog.Error, "Dummy Client not available")
	case master.ConnectTimeout, master.RequestTimeout:
		c.logf(mlog.Error, "%sRPC call failed: Connection timed out", prefix)
	case master.Reset:
		c.logf(mlog.Error, "%sRPC call failed: Connection reset by peer", prefix)
	case master.Threw:
		// mooncake_client's handler threw (fsreplica.go; real 0.3.9).
		c.logf(mlog.Error, "%sRPC call failed: %s", prefix, re.Text)
	}
	return int(mooncake.RPC_FAIL)
}

// Put is put(key, value): the value goes through the local buffer shm.
func (c *DummyClient) Put(ctx context.Context, key string, value []byte) (int, error) {
	if !c.up || c.local == nil || int64(len(value)) > c.local.Size {
		return -1, nil
	}
	if c.notConnected() {
		return int(mooncake.RPC_FAIL), nil
	}
	c.local.Data.Write(0, value)
	rc, err := c.svc.PutFrom(ctx, c.name, key, c.local.Base, int64(len(value)), nil)
	if err != nil {
		return c.rpcCode(err), nil
	}
	return rc, nil
}

// Get is get(key): b"" on failure.
func (c *DummyClient) Get(ctx context.Context, key string) ([]byte, error) {
	if !c.up || c.local == nil || c.notConnected() {
		return []byte{}, nil
	}
	n, err := c.svc.GetInto(ctx, c.name, key, c.local.Base, c.local.Size, nil)
	if err != nil || n < 0 {
		if err != nil {
			c.rpcCode(err)
		}
		return []byte{}, nil
	}
	return c.local.Data.Read(0, int64(n)), nil
}

// GetBuffer is get_buffer(key): the object's size, 0 for None.
func (c *DummyClient) GetBuffer(ctx context.Context, key string) (int, error) {
	b, err := c.Get(ctx, key)
	return len(b), err
}

// Remove is remove(key) through the real client's IPC (not modelled: a
// harness error, never a guess).
func (c *DummyClient) Remove(context.Context, string) (int, error) {
	return 0, errors.New("model: remove through a dummy client (standalone storage) is not modelled")
}

// IsExist is is_exist(key).
func (c *DummyClient) IsExist(ctx context.Context, key string) (int, error) {
	if !c.up {
		return -1, nil
	}
	if c.notConnected() {
		return int(mooncake.RPC_FAIL), nil
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
	if c.up && c.notConnected() {
		// batch_is_exist maps any failure to -1 per key (real 0.3.12.post1:
		// [-1 -1 -1] while batch_put_from gave -900; explore seed 1182).
		for i := range out {
			out[i] = -1
		}
		return out, nil
	}
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

// BatchPutFrom is batch_put_from: pointers are dummy addresses, which
// mooncake_client must find in the shm it mapped for this dummy.
func (c *DummyClient) BatchPutFrom(ctx context.Context, keys []string, ptrs []uint64, sizes []int64) ([]int, error) {
	return c.batch(ctx, BatchPutFromHelper, keys, ptrs, sizes, RealClientService.PutFrom)
}

// BatchGetInto is batch_get_into.
func (c *DummyClient) BatchGetInto(ctx context.Context, keys []string, ptrs []uint64, sizes []int64) ([]int, error) {
	bt := &batchTiming{keys: len(keys)}
	return c.batch(context.WithValue(ctx, dummyBatchGetKey{}, bt), BatchGetIntoHelper, keys, ptrs, sizes, RealClientService.GetInto)
}

// dummyBatchGetKey carries a *batchTiming: the GetInto calls are one
// batch_get_into_dummy_helper's (not get's get_buffer_info_dummy_helper),
// where the context reaches mooncake_client (sim).
type dummyBatchGetKey struct{}

// batchTiming is what batch_get_into_internal counts over the batch the
// model's dummy sends one key a call: its keys, those done, the memory and
// disk reads, when it began and its SSD time.
type batchTiming struct {
	keys, done, mem, disk int
	// temp: DISK replicas read through a temporary buffer
	// (fsreplica.go), in neither count.
	temp         int
	start, store time.Duration
}

// batch runs op (a method expression, so c.svc is read only per key) for
// each key, each call naming its batch of helper and the first carrying the
// batch's buffers (mooncake_client maps them all first: BufferBatch); an RPC
// failure is that key's code. 0.3.14's registered host buffers are moved
// by the dummy itself (dummy_hostbuf.go).
func (c *DummyClient) batch(ctx context.Context, helper string, keys []string, ptrs []uint64, sizes []int64,
	op func(svc RealClientService, ctx context.Context, dummy, key string, ptr uint64, size int64, b *BufferBatch) (int, error)) ([]int, error) {
	if err := checkBatch(keys, ptrs, sizes); err != nil {
		return nil, err
	}
	out := make([]int, len(keys))
	if c.up && c.notConnected() { // invoke_batch_rpc: every key RPC_FAIL
		for i := range out {
			out[i] = int(mooncake.RPC_FAIL)
		}
		return out, nil
	}
	host, shmPtrs, shmSizes, ok := c.splitHostBuffers(ptrs, sizes)
	if !ok {
		for i := range out {
			out[i] = int(mooncake.INVALID_PARAMS)
		}
		return out, nil
	}
	first := true
	for i, k := range keys {
		if host[i] {
			rc, err := c.staged(ctx, helper, k, ptrs[i], sizes[i])
			if err != nil {
				return nil, err
			}
			out[i] = rc
			continue
		}
		b := &BufferBatch{Helper: helper, First: first}
		if first {
			b.Ptrs, b.Sizes, first = shmPtrs, shmSizes, false
		}
		rc, err := op(c.svc, ctx, c.name, k, ptrs[i], sizes[i], b)
		if err != nil {
			rc = c.rpcCodeOf(err, "Batch ")
		}
		out[i] = rc
	}
	return out, nil
}

// HealthCheck is health_check(): 2 until a ping to mooncake_client has
// succeeded (real 0.3.13.post1 right after setup_dummy answered 2).
func (c *DummyClient) HealthCheck(context.Context) (int, error) {
	if !c.p.HealthCheck {
		return 0, noAttr(c.p, "health_check")
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
