package scenarios

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/sglang"
)

// integration is the process of a node's put, fetch and call steps: an
// integration of its own beside SGLang (an LMCache or vLLM connector) with
// its MooncakeDistributedStore(). A call step looks a method up on it (no
// setup needed); a put step sets it up from the node's MOONCAKE_* settings
// (once) and puts Python bytes, which Mooncake copies through the store's
// local buffer (SGLang's zero-copy page I/O never does).
type integration struct {
	proc  engine.Process
	store engine.Store
	env   map[string]string // the node's, for setup's arguments
	setUp bool
}

// Defaults of an integration's setup where the node's env is silent:
// Mooncake's own (real_client.cpp DEFAULT_LOCAL_BUFFER_SIZE 16 MiB,
// DEFAULT_PROTOCOL tcp) and SGLang's for the names they share.
const (
	integrationLocalBuffer = 16 << 20
	integrationSegment     = 4 << 30
	// integrationDummyPool is setup_dummy's mem_pool_size, which
	// DummyClient does not use (Mooncake's standalone example: 64 MiB).
	integrationDummyPool = 64 << 20
)

// integrationPut runs a put or fetch step: the node's integration (set up
// on its first put or fetch step; a failed setup is the step's error code)
// puts bytes(size) under key and returns put's code, or gets key and
// returns the bytes get gave back (0 for b"", which is how get reports
// any failure).
func (r *run) integrationPut(ctx context.Context, s Step, env Env, file any, extra map[string]any) (any, error) {
	in, err := r.integrationOn(ctx, s.Node, env, file, extra)
	if err != nil {
		return nil, err
	}
	if !in.setUp {
		in.setUp = true
		r.integrations[s.Node] = in
		if rc, err := r.integrationSetup(ctx, s, in); err != nil || rc != 0 {
			return int64(rc), err
		}
	}
	t0 := r.callStart()
	if s.Action == StepFetch {
		var n int
		switch s.Method {
		case "get_buffer":
			n, err = in.store.GetBuffer(ctx, s.Key)
		case "remove":
			n, err = in.store.Remove(ctx, s.Key)
		case "is_exist":
			n, err = in.store.IsExist(ctx, s.Key)
		case "batch_is_exist":
			ex, e := in.store.BatchIsExist(ctx, []string{s.Key})
			n, err = single(s, ex, e)
		case "batch_get_session_start":
			n, err = integrationSessionStart(ctx, s, in)
		case fetchIntoMethod:
			return r.integrationGetInto(ctx, s, in)
		default:
			var b []byte
			b, err = in.store.Get(ctx, s.Key)
			n = len(b)
		}
		r.integrationCall(s.Method, n, err, t0)
		if err != nil {
			return nil, err
		}
		return int64(n), nil
	}
	if len(s.Keys) > 0 {
		return r.integrationBatchPut(ctx, s, in)
	}
	rc, err := in.store.Put(ctx, s.Key, make([]byte, s.Size))
	r.integrationCall("put", rc, err, t0)
	if err != nil {
		return nil, err
	}
	return int64(rc), nil
}

// integrationSetup is the integration's setup on its first put or fetch
// step: setup() from the node's MOONCAKE_* settings, or, with
// MOONCAKE_STANDALONE_STORAGE true, setup_dummy(mem_pool_size,
// local_buffer_size, MOONCAKE_CLIENT) as Mooncake's standalone example
// makes it (a dummy client of the node's mooncake_client).
func (r *run) integrationSetup(ctx context.Context, s Step, in integration) (int, error) {
	if on, err := integrationStandalone(in.env); err != nil || on {
		if err != nil {
			return 0, fmt.Errorf("%s on %s: %w", s.Action, s.Node, err)
		}
		addr := in.env["MOONCAKE_CLIENT"]
		if addr == "" {
			return 0, fmt.Errorf("%s on %s: MOONCAKE_CLIENT is required with MOONCAKE_STANDALONE_STORAGE (setup_dummy's server_address)", s.Action, s.Node)
		}
		local, err := integrationLocalBufferSize(in.env)
		if err != nil {
			return 0, fmt.Errorf("%s on %s: %w", s.Action, s.Node, err)
		}
		t0 := r.callStart()
		rc, err := in.store.SetupDummy(ctx, integrationDummyPool, local, addr)
		r.integrationCall("setup_dummy", rc, err, t0)
		return rc, err
	}
	args, err := integrationSetupArgs(in.env)
	if err != nil {
		return 0, fmt.Errorf("%s on %s: %w", s.Action, s.Node, err)
	}
	t0 := r.callStart()
	rc, err := in.store.Setup(ctx, args)
	r.integrationCall("setup", rc, err, t0)
	return rc, err
}

// integrationStandalone reads MOONCAKE_STANDALONE_STORAGE (SGLang's name
// for the same choice; absent: false).
func integrationStandalone(env map[string]string) (bool, error) {
	v, ok := env["MOONCAKE_STANDALONE_STORAGE"]
	if !ok {
		return false, nil
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("MOONCAKE_STANDALONE_STORAGE %q: want a boolean", v)
	}
	return on, nil
}

// integrationBuffer is a zero-copy step's buffer of size bytes from the
// step's allocator: host memory of the integration's own, or Mooncake's
// shared memory (MooncakeHostMemAllocator).
func (r *run) integrationBuffer(ctx context.Context, s Step, in integration, size int64) (engine.Buffer, error) {
	alloc := engine.AllocDefault
	if s.Allocator == BufferMooncake {
		alloc = engine.AllocMooncakeShm
	}
	buf, err := in.proc.Alloc(ctx, alloc, size)
	if err != nil {
		return engine.Buffer{}, fmt.Errorf("%s on %s: allocate the %s buffer (%s): %w", s.Action, s.Node, s.Action, alloc, err)
	}
	return buf, nil
}

// registerStepBuffer registers buf with register_buffer (a call the step
// counts) unless the step says unregistered.
func (r *run) registerStepBuffer(ctx context.Context, s Step, in integration, buf engine.Buffer) (int, error) {
	if s.Unregistered {
		return 0, nil
	}
	t0 := r.callStart()
	rc, err := in.store.RegisterBuffer(ctx, buf.Ptr, buf.Size)
	r.integrationCall("register_buffer", rc, err, t0)
	return rc, err
}

// integrationBatchPut is a batch put step: a buffer of len(Keys)*Size
// bytes from the step's allocator (integrationBuffer), registered once with
// register_buffer unless the step says unregistered (its code is the
// step's when it fails), then one batch_put_from of the
// keys from consecutive slices; its codes are the step's result and count
// one per key in batch_put_from's codes. With SkipExisting,
// batch_is_exist first (its answers count in batch_is_exist's codes), and
// only the keys it did not find are put (nothing at all when it found
// every one).
func (r *run) integrationBatchPut(ctx context.Context, s Step, in integration) (any, error) {
	out := make([]int64, len(s.Keys))
	keys := s.Keys
	if s.SkipExisting {
		t0 := r.callStart()
		ex, err := in.store.BatchIsExist(ctx, s.Keys)
		if err != nil {
			r.integrationCall("batch_is_exist", 0, err, t0)
			return nil, err
		}
		keys = nil
		for i, k := range s.Keys {
			r.integrationCall("batch_is_exist", ex[i], nil, t0)
			if ex[i] != 1 {
				keys = append(keys, k)
			}
		}
		if len(keys) == 0 {
			return out, nil
		}
	}
	size := int64(s.Size)
	buf, err := r.integrationBuffer(ctx, s, in, size*int64(len(keys)))
	if err != nil {
		return nil, err
	}
	if rc, err := r.registerStepBuffer(ctx, s, in, buf); err != nil || rc != 0 {
		return int64(rc), err
	}
	ptrs := make([]uint64, len(keys))
	sizes := make([]int64, len(keys))
	for i := range keys {
		ptrs[i], sizes[i] = buf.Slice(int64(i)*size, size).Ptr, size
	}
	t0 := r.callStart()
	rcs, err := in.store.BatchPutFrom(ctx, keys, ptrs, sizes)
	if err != nil {
		r.integrationCall("batch_put_from", 0, err, t0)
		return nil, err
	}
	if len(rcs) != len(keys) {
		return nil, fmt.Errorf("put on %s: batch_put_from returned %d codes for %d keys", s.Node, len(rcs), len(keys))
	}
	put := 0
	for i, k := range s.Keys {
		if put < len(keys) && keys[put] == k {
			r.integrationCall("batch_put_from", rcs[put], nil, t0)
			out[i] = int64(rcs[put])
			put++
		}
	}
	return out, nil
}

// integrationGetInto is a fetch step's batch_get_into of its key into a
// buffer of Size bytes from the step's allocator (integrationBuffer), registered
// with register_buffer first (its code is the step's when it fails)
// unless the step says unregistered; the step's result is the call's one
// answer, the bytes read or a negative code.
func (r *run) integrationGetInto(ctx context.Context, s Step, in integration) (any, error) {
	buf, err := r.integrationBuffer(ctx, s, in, int64(s.Size))
	if err != nil {
		return nil, err
	}
	if rc, err := r.registerStepBuffer(ctx, s, in, buf); err != nil || rc != 0 {
		return int64(rc), err
	}
	t0 := r.callStart()
	rcs, err := in.store.BatchGetInto(ctx, []string{s.Key}, []uint64{buf.Ptr}, []int64{buf.Size})
	if err != nil {
		r.integrationCall(fetchIntoMethod, 0, err, t0)
		return nil, err
	}
	if len(rcs) != 1 {
		return nil, fmt.Errorf("fetch on %s: batch_get_into returned %d answers for 1 key", s.Node, len(rcs))
	}
	r.integrationCall(fetchIntoMethod, rcs[0], nil, t0)
	return int64(rcs[0]), nil
}

// callStart marks a call's start on the world's clock: its time and the
// host work the model had charged so far.
type callStart struct{ at, host time.Duration }

func (r *run) callStart() callStart {
	c := r.world.Clock()
	return callStart{c.Now(), engine.Spent(c, engine.HostWork)}
}

func (r *run) integrationCall(method string, rc int, err error, t0 callStart) {
	if d, ok := engine.AsProcessDied(err); ok && d.Call == "" {
		d.Call = method // the integration's call it died in
	}
	c := r.world.Clock()
	call := Call{Method: method, Code: rc, MS: ms(c.Now() - t0.at), HostMS: ms(engine.Spent(c, engine.HostWork) - t0.host)}
	if pe, ok := engine.AsPyError(err); ok {
		call.Raised = &Exception{Class: pe.Class, Message: pe.Message}
	}
	r.integrationCalls = append(r.integrationCalls, call)
}

// integrationOn is the node's integration, started with the node's
// environment on its first put or call step.
func (r *run) integrationOn(ctx context.Context, node string, env Env, file any, extra map[string]any) (integration, error) {
	if in, ok := r.integrations[node]; ok {
		return in, nil
	}
	p, penv, err := r.nodeProcess(ctx, node, "the integration's", env, file, extra)
	if err != nil {
		return integration{}, err
	}
	st, err := p.NewStore(ctx)
	if err != nil {
		_ = p.Close(ctx)
		return integration{}, err
	}
	in := integration{proc: p, store: st, env: penv}
	r.integrations[node] = in
	return in, nil
}

// integrationSetupArgs: setup(local_hostname, metadata_server,
// global_segment_size, local_buffer_size, protocol, device_name,
// master_server_addr) from MOONCAKE_LOCAL_HOSTNAME,
// MOONCAKE_TE_META_DATA_SERVER, MOONCAKE_GLOBAL_SEGMENT_SIZE,
// MOONCAKE_LOCAL_BUFFER_SIZE (bytes), MOONCAKE_PROTOCOL, MOONCAKE_DEVICE,
// MOONCAKE_MASTER (required). Seven positionals: every release binds them;
// with MOONCAKE_ENABLE_SSD_OFFLOAD true also the 8th (None) and the SSD
// keywords (0.3.10.post2+), ssd_offload_path from
// MOONCAKE_OFFLOAD_FILE_STORAGE_PATH, as SGLang's MooncakeStore passes them.
func integrationSetupArgs(env map[string]string) (engine.SetupArgs, error) {
	get := func(k, def string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return def
	}
	a := engine.SetupArgs{
		LocalHostname:     get("MOONCAKE_LOCAL_HOSTNAME", "localhost"),
		MetadataServer:    get("MOONCAKE_TE_META_DATA_SERVER", "P2PHANDSHAKE"),
		Protocol:          get("MOONCAKE_PROTOCOL", "tcp"),
		RDMADevices:       get("MOONCAKE_DEVICE", ""),
		MasterServerAddr:  env["MOONCAKE_MASTER"],
		GlobalSegmentSize: integrationSegment,
		LocalBufferSize:   integrationLocalBuffer,
	}
	if a.MasterServerAddr == "" {
		return a, fmt.Errorf("MOONCAKE_MASTER is required (the integration's master_server_addr)")
	}
	if v, ok := env["MOONCAKE_GLOBAL_SEGMENT_SIZE"]; ok {
		n, err := sglang.ParseGlobalSegmentSize(v)
		if err != nil {
			return a, fmt.Errorf("MOONCAKE_GLOBAL_SEGMENT_SIZE %q: %w", v, err)
		}
		a.GlobalSegmentSize = n
	}
	// SSD offload as SGLang's MooncakeStore passes it (the 8th positional,
	// then the keyword arguments of 0.3.10.post2+).
	if v, ok := env["MOONCAKE_ENABLE_SSD_OFFLOAD"]; ok {
		on, err := strconv.ParseBool(v)
		if err != nil {
			return a, fmt.Errorf("MOONCAKE_ENABLE_SSD_OFFLOAD %q: want a boolean", v)
		}
		if on {
			a.PassEngine = true
			a.Kwargs = []engine.Kwarg{{Name: "enable_ssd_offload", Value: true}, {Name: "ssd_offload_path", Value: env["MOONCAKE_OFFLOAD_FILE_STORAGE_PATH"]}}
		}
	}
	n, err := integrationLocalBufferSize(env)
	a.LocalBufferSize = n
	return a, err
}

// integrationLocalBufferSize is MOONCAKE_LOCAL_BUFFER_SIZE (bytes), or
// Mooncake's default.
func integrationLocalBufferSize(env map[string]string) (int64, error) {
	v, ok := env["MOONCAKE_LOCAL_BUFFER_SIZE"]
	if !ok {
		return integrationLocalBuffer, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return integrationLocalBuffer, fmt.Errorf("MOONCAKE_LOCAL_BUFFER_SIZE %q: want a byte count", v)
	}
	return n, nil
}

func (r *run) closeIntegrations(ctx context.Context) {
	for _, n := range sortedKeys(r.integrations) {
		in := r.integrations[n]
		if in.setUp {
			_, _ = in.store.Close(ctx)
		}
		_ = in.proc.Close(ctx)
	}
	r.integrations = map[string]integration{}
}

// nodeProcess starts a process of its own on node (whose: "the
// integration's", for errors) with the node's environment, which it also
// returns for the process's setup arguments.
func (r *run) nodeProcess(ctx context.Context, node, whose string, env Env, file any, extra map[string]any) (engine.Process, map[string]string, error) {
	l, err := r.launchFor(node, env, file, extra)
	if err != nil {
		return nil, nil, err
	}
	p, err := r.world.StartProcess(ctx, node, l.Env)
	if err != nil {
		return nil, nil, fmt.Errorf("start %s process on %s: %w", whose, node, err)
	}
	return p, l.Env, nil
}
