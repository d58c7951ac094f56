package scenarios

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/sglang"
	"gopkg.in/yaml.v3"
)

// The te step's operations: what PD disaggregation does with
// mooncake.engine.TransferEngine (SGLang's disaggregation/mooncake
// transfer_engine.py, vLLM's Mooncake connector), and its peer's process
// frozen or thawed.
const (
	TEInitialize = "initialize" // TransferEngine().initialize(...) from the node's env
	TERegister   = "register"   // register_memory(ptr, size) of a buffer of size bytes
	TEUnregister = "unregister" // unregister_memory(ptr) of that buffer (still allocated: a peer may write there)
	TEAllocate   = "allocate"   // allocate_managed_buffer(size): the engine's own buffer, registered (over 256 MiB)
	TETransfer   = "transfer"   // (batch_)transfer_sync_write of size bytes into peer's registered buffer
	TEPause      = "pause"      // the node's TransferEngine process frozen (SIGSTOP): a hung peer
	TEResume     = "resume"     // thawed (SIGCONT)
	// TEStray: a process that is not Mooncake connects to the node's
	// handshake port (get_rpc_port()), sends Send and closes - a TCP
	// health check, a port scan, a scraper or an HTTP probe given the
	// wrong port.
	TEStray = "stray"
)

// TEStrayHTTP is the te stray's HTTP GET (what kube-probe, curl or a
// Prometheus scrape sends first).
const TEStrayHTTP = "http"

// TEOps lists the te step's operations.
var TEOps = []string{TEInitialize, TERegister, TEUnregister, TEAllocate, TETransfer, TEPause, TEResume, TEStray}

// The te register's memory kinds.
const (
	TEMemoryHost = "host" // malloc'd host memory (the default)
	TEMemoryGPU  = "gpu"  // device memory of the node's GPU 0 (torch.empty(..., device="cuda"))
)

func (d *decoder) checkTE(n *yaml.Node, s *Step) {
	switch {
	case s.Memory != "" && s.Op != TERegister:
		d.errorf(n, "te: memory is op register's (the buffer it registers), not op %s's", s.Op)
	case s.Memory != "" && s.Memory != TEMemoryHost && s.Memory != TEMemoryGPU:
		d.errorf(n, "te: memory %q; valid: %s, %s", s.Memory, TEMemoryHost, TEMemoryGPU)
	case s.Raise && (s.Op == TEPause || s.Op == TEResume || s.Op == TEAllocate || s.Op == TEUnregister || s.Batch):
		d.errorf(n, "te: raise is SGLang's PD wrapper's, which initializes, registers and writes with transfer_sync_write (op initialize, register, or transfer without batch)")
	case s.Send != "" && s.Op != TEStray:
		d.errorf(n, "te: send is op stray's (what the stranger sends), not op %s's", s.Op)
	case s.Send != "" && s.Send != TEStrayHTTP:
		d.errorf(n, "te: send %q; valid: %s (omit it for a connection that sends nothing)", s.Send, TEStrayHTTP)
	case s.Raise && s.Op == TEStray:
		d.errorf(n, "te: raise is SGLang's PD wrapper's; op stray is no call of SGLang's")
	case s.Entries != 0 && (!s.Batch || s.Entries < 2 || int64(s.Size)%int64(s.Entries) != 0):
		d.errorf(n, "te: entries %d: a batch's (batch: true), at least 2, dividing size (%d bytes) evenly", s.Entries, int64(s.Size))
	case s.PD && (s.Op != TETransfer || s.Raise):
		d.errorf(n, "te: pd is a transfer's (SGLang PD's KV manager sending a KV chunk), and the KV manager does not raise: not with raise")
	}
	switch s.Op {
	case TEInitialize, TEUnregister, TEPause, TEResume, TEStray:
		if s.Size != 0 || s.Peer != "" || s.Batch {
			d.errorf(n, "te: op %s takes no size, peer or batch", s.Op)
		}
	case TERegister:
		if s.Size <= 0 || s.Peer != "" || s.Batch {
			d.errorf(n, "te: op register takes size (positive), no peer or batch")
		}
	case TEAllocate:
		if int64(s.Size) < te.ManagedBufferMin || s.Peer != "" || s.Batch {
			d.errorf(n, "te: op allocate takes size above 256MiB (the slab classes below it are not modelled), no peer or batch")
		}
	case TETransfer:
		if s.Size <= 0 || s.Peer == "" {
			d.errorf(n, "te: op transfer needs peer (a node) and size (positive)")
		}
	default:
		d.errorf(n, "te: op %q%s; valid ops: %s (te: {node: prefill, op: transfer, peer: decode, size: 1MiB, batch: true})", s.Op, didYouMean(s.Op, TEOps), strings.Join(TEOps, ", "))
	}
}

// teNode is a node's TransferEngine: a process of its own (as SGLang's
// disaggregation runs it beside the scheduler's store) with one
// TransferEngine object, its session name once initialized and its
// registered buffer.
type teNode struct {
	proc    engine.TEProcess
	te      engine.TransferEngine
	env     map[string]string // the node's, for initialize's arguments
	host    string            // local_hostname given to initialize
	meta    string            // metadata_server given to initialize
	port    int               // get_rpc_port() after a successful initialize
	buf     engine.Buffer
	paused  bool
	started bool
}

// session is the segment name a transfer to this engine targets: with
// P2PHANDSHAKE, host:get_rpc_port() (SGLang's session_id; a port in
// local_hostname is not the RPC port), else local_hostname as given (the
// name its segment is published under).
func (t *teNode) session() string {
	if t.meta != "P2PHANDSHAKE" {
		return t.host
	}
	h := t.host
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
		if strings.Contains(h, ":") {
			h = "[" + h + "]"
		}
	}
	return h + ":" + strconv.Itoa(t.port)
}

func (r *run) teOn(ctx context.Context, node string, env Env, file any, extra map[string]any) (*teNode, error) {
	if t, ok := r.tes[node]; ok {
		return t, nil
	}
	p, penv, err := r.nodeProcess(ctx, node, "the transfer engine's", env, file, extra)
	if err != nil {
		return nil, err
	}
	tp, ok := p.(engine.TEProcess)
	if !ok {
		_ = p.Close(ctx)
		return nil, engine.Unsupportedf("te step: this engine's processes do not drive mooncake.engine.TransferEngine")
	}
	t := &teNode{proc: tp, env: penv}
	r.tes[node] = t
	te, err := tp.NewTransferEngine(ctx)
	if err != nil {
		return nil, err
	}
	t.te = te
	t.host = penv["MOONCAKE_LOCAL_HOSTNAME"]
	if t.host == "" {
		t.host = "localhost"
	}
	return t, nil
}

// teStep runs a te step; the result is the call's return code (nil for
// pause and resume).
func (r *run) teStep(ctx context.Context, s Step, env Env, file any, extra map[string]any) (any, error) {
	t, err := r.teOn(ctx, s.Node, env, file, extra)
	if err != nil {
		return nil, err
	}
	if t.paused && s.Op != TEResume {
		return nil, fmt.Errorf("te %s on node %s: its process is paused (te: {node: %s, op: resume} first)", s.Op, s.Node, s.Node)
	}
	t0 := r.callStart()
	var rc int
	method := ""
	switch s.Op {
	case TEPause:
		t.paused = true
		return nil, t.proc.Pause(ctx)
	case TEResume:
		t.paused = false
		return nil, t.proc.Resume(ctx)
	case TEStray:
		return nil, r.teStray(ctx, s, t)
	case TEInitialize:
		get := func(k, def string) string {
			if v, ok := t.env[k]; ok {
				return v
			}
			return def
		}
		method = "initialize"
		t.meta = get("MOONCAKE_TE_META_DATA_SERVER", "P2PHANDSHAKE")
		rc, err = t.te.Initialize(ctx, t.host, t.meta, get("MOONCAKE_PROTOCOL", "tcp"), get("MOONCAKE_DEVICE", ""))
		if err == nil && rc == 0 {
			t.started = true
			t.port, err = t.te.RPCPort(ctx)
		}
	case TERegister:
		method = "register_memory"
		alloc := engine.AllocDefault
		if s.Memory == TEMemoryGPU {
			alloc = engine.AllocCUDA
		}
		t.buf, err = t.proc.Alloc(ctx, alloc, int64(s.Size))
		if err != nil {
			return nil, fmt.Errorf("te register on %s: %w", s.Node, err)
		}
		rc, err = t.te.RegisterMemory(ctx, t.buf.Ptr, t.buf.Size)
	case TEUnregister:
		if t.buf.Size == 0 {
			return nil, fmt.Errorf("te unregister on %s: no registered buffer (te register on it first)", s.Node)
		}
		// The buffer stays allocated and known to the peers that read the
		// descriptor before: they may still write there.
		method = "unregister_memory"
		rc, err = t.te.UnregisterMemory(ctx, t.buf.Ptr)
	case TEAllocate:
		// Recorded as Python tests the address: 1 a buffer, 0 NULL (the
		// address itself is the allocator's).
		method = "allocate_managed_buffer"
		a, ok := t.te.(engine.TEAllocator)
		if !ok {
			return nil, engine.Unsupportedf("te allocate: this engine does not model allocate_managed_buffer")
		}
		var ptr uint64
		ptr, err = a.AllocateManagedBuffer(ctx, int64(s.Size))
		if err == nil && ptr != 0 {
			t.buf = engine.Buffer{Ptr: ptr, Size: int64(s.Size)}
			rc = 1
		}
	case TETransfer:
		peer, ok := r.tes[s.Peer]
		if !ok || !peer.started || peer.buf.Size == 0 {
			return nil, fmt.Errorf("te transfer from %s: peer %s has no initialized TransferEngine with a registered buffer (te initialize and register on it first)", s.Node, s.Peer)
		}
		if t.buf.Size < int64(s.Size) || peer.buf.Size < int64(s.Size) {
			return nil, fmt.Errorf("te transfer of %d bytes from %s to %s: larger than a registered buffer (%d, %d)", int64(s.Size), s.Node, s.Peer, t.buf.Size, peer.buf.Size)
		}
		method = "transfer_sync_write"
		if s.Batch {
			method = "batch_transfer_sync_write"
		}
		entries := 0
		if s.Batch {
			entries = max(1, s.Entries)
		}
		rc, err = t.te.TransferSyncWrite(ctx, peer.session(), t.buf.Ptr, peer.buf.Ptr, int64(s.Size), entries)
	}
	r.integrationCall(method, rc, err, t0)
	if err != nil {
		return nil, err
	}
	if s.PD && rc != 0 {
		r.pdSendFailed(s, t, r.tes[s.Peer])
	}
	if pr := pdRaises[s.Op]; s.Raise && pr.failed(rc) {
		r.tr.Log(sglangSource, sglang.LevelError, pr.text)
		return nil, &engine.PyError{Class: "RuntimeError", Message: pr.text}
	}
	return int64(rc), nil
}

// pdRaises are the calls SGLang's PD wrapper checks (te's raise: true):
// disaggregation/mooncake's MooncakeTransferEngine logs an error and raises
// RuntimeError with the same text when initialize or register_memory does
// not return 0, or transfer_sync_write returns less than 0 (the wrapper as
// Mooncake's own tree carries it, mooncake-transfer-engine/tests/
// fault-tolerant/transfer_engine.py v0.3.4.post2 … v0.3.12.post1:32-71,
// "to run SGLang with MooncakeTransferEngine"; SGLang 0.4.x).
var pdRaises = map[string]struct {
	failed func(rc int) bool
	text   string
}{
	TEInitialize: {func(rc int) bool { return rc != 0 }, "Mooncake Transfer Engine initialization failed."},
	TERegister:   {func(rc int) bool { return rc != 0 }, "Mooncake memory registration failed."},
	TETransfer:   {func(rc int) bool { return rc < 0 }, "Mooncake Transfer Engine Return Error."},
}

func (r *run) closeTEs(ctx context.Context) {
	for _, n := range sortedKeys(r.tes) {
		t := r.tes[n]
		if t.paused {
			_ = t.proc.Resume(ctx)
		}
		_ = t.proc.Close(ctx)
	}
	r.tes = map[string]*teNode{}
}

// strayHTTP is the te stray's HTTP GET: its first 8 bytes, "GET / HT",
// are the length the handshake daemon reads.
const strayHTTP = "GET / HTTP/1.1\r\nHost: localhost\r\nUser-Agent: kube-probe/1.31\r\nAccept: */*\r\nConnection: close\r\n\r\n"

// teStray runs a te stray step: a process that is not Mooncake connects
// to the node's handshake port (engine.TEStranger).
func (r *run) teStray(ctx context.Context, s Step, t *teNode) error {
	if !t.started {
		return fmt.Errorf("te stray on %s: its TransferEngine has no handshake port yet (te initialize on it first)", s.Node)
	}
	st, ok := t.te.(engine.TEStranger)
	if !ok {
		return engine.Unsupportedf("te stray: this engine's transfer engines take no connection from outside Mooncake")
	}
	var payload []byte
	if s.Send == TEStrayHTTP {
		payload = []byte(strayHTTP)
	}
	if err := st.Stray(ctx, t.port, payload); err != nil {
		return fmt.Errorf("te stray on %s: %w", s.Node, err)
	}
	return nil
}
