package sim

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/client"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/sim/netsim"
)

// Metadata HTTP client timeouts (transfer_metadata_plugin.cpp curl options).
const (
	curlTimeout        = 3000 * time.Millisecond
	curlConnectTimeout = 1500 * time.Millisecond
)

// transferTimeout bounds a data-path transfer to a silent peer.
const transferTimeout = 30 * time.Second

// synGiveUp is how long a blocking connect() whose SYNs go unanswered
// takes to fail with ETIMEDOUT: the host's kernel's SYN retries
// (net.ipv4.tcp_syn_retries 6, tcp_syn_linear_timeouts 4 on Linux 6.18).
// Real 0.3.9 and 0.3.12.post1 in a network namespace whose route to the
// peer drops every packet: the put's transfer failed 134.3-134.4 s after
// it started (docs/REAL-FINDINGS.md §124).
const synGiveUp = 134 * time.Second

// kernelBufferedWrite is the largest write a paused peer's socket buffers
// take whole (measured at one page, 256 KiB; larger ones stall).
const kernelBufferedWrite = 256 << 10

// procState is a server process's state.
type procState int

const (
	running procState = iota
	stopped
	paused
)

// detachedClock lets a background thread (heartbeat) wait without moving
// the world: waits accumulate and the caller schedules its next event
// after them.
type detachedClock struct {
	base    func() time.Duration
	elapsed time.Duration
}

func (c *detachedClock) Now() time.Duration { return c.base() + c.elapsed }

// threadClock is the context key of a background thread's clock: the
// remount thread's metadata writes go through the process's TE, whose
// transports wait on the foreground clock unless the call says otherwise.
type threadClock struct{}

// onThread gives ctx a thread's own clock for the metadata transports.
func onThread(ctx context.Context, c engine.Clock) context.Context {
	return context.WithValue(ctx, threadClock{}, c)
}

// clockFor is ctx's thread clock, or def (the foreground's).
func clockFor(ctx context.Context, def engine.Clock) engine.Clock {
	if c, ok := ctx.Value(threadClock{}).(engine.Clock); ok {
		return c
	}
	return def
}
func (c *detachedClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.elapsed += d
	return nil
}

// exchange applies the link and the server's state to one RPC from node
// to target. It returns nil when the request reaches a running server.
// redial (nil = the server never comes back within the call) is the
// server's state at a later connect of the same call: a refused call
// connects again (refusedConnects) and goes on if the server answers then.
// conn names the caller's connection ("" = a fresh one each call;
// followerConn: a batch key whose bytes went with the first key's call, so
// its link adds no delay of its own).
func (w *World) exchange(ctx context.Context, clock engine.Clock, conn, from, target, op string, st procState, redial func() procState, t client.Timeouts, req, resp int64) error {
	on := func() netsim.Outcome {
		if conn == "" || conn == followerConn {
			return w.net.Exchange(from, target, req, resp)
		}
		return w.net.ExchangeOn(netsim.Conn{Key: conn, Now: clock.Now()}, from, target, req, resp)
	}
	var out netsim.Outcome
	if st != stopped {
		out = on()
	}
	if st == stopped || out.Verdict == netsim.Refuse {
		back, err := w.refusedConnects(ctx, clock, from, target, op, redial)
		if err != nil {
			return err
		}
		st, out = back, on()
	}
	if conn == followerConn {
		out.Delay = 0
	}
	switch out.Verdict {
	case netsim.Blackhole:
		// toxiproxy's timeout toxic: TCP connects, nothing comes back; the
		// request timer fires.
		if err := clock.Sleep(ctx, t.Request); err != nil {
			return err
		}
		return &master.RPCError{Kind: master.RequestTimeout, Op: op, After: t.Request}
	case netsim.ResetPeer, netsim.Closed:
		if err := clock.Sleep(ctx, out.Delay); err != nil {
			return err
		}
		kind := master.Reset
		if out.Verdict == netsim.Closed {
			kind = master.EOF // the proxy closed it (limit_data): "End of file"
		}
		return &master.RPCError{Kind: kind, Op: op, After: out.Delay}
	}
	if st == paused || (t.Request > 0 && out.Delay >= t.Request) {
		if err := clock.Sleep(ctx, t.Request); err != nil {
			return err
		}
		return &master.RPCError{Kind: master.RequestTimeout, Op: op, After: t.Request}
	}
	return clock.Sleep(ctx, out.Delay)
}

// poolConnects is how many connects coro_io::client_pool's reconnect makes
// to a refusing server (client_pool.hpp: one, then connect_retry_count 3
// more), each followed by a wait of reconnect_wait_time (1 s) × U(1, 1.2)
// less the connect's cost; "out of max limit" comes one wait after the
// last. Real 0.3.8.post1 (seed 184): refused connects at +0, 1.00, 2.03,
// 3.18 s, given up at 4.27 s (RefusedPoolCost); the ping whose next connect
// came after the master was back succeeded at that connect.
const poolConnects = 4

// poolConnectGap is the mean wait between two of those connects.
const poolConnectGap = client.RefusedPoolCost / poolConnects

// refusedConnects is one call's reconnect to a refusing target: at each
// later connect the server may be back (redial gives its state, and the
// link must not refuse); the call then goes on from there with that state.
// Otherwise it fails with Refused after RefusedPoolCost. On a detached
// clock (a background thread) nothing moves between the connects, so the
// caller re-checks at the connect times itself (heartbeat.go).
func (w *World) refusedConnects(ctx context.Context, clock engine.Clock, from, target, op string, redial func() procState) (procState, error) {
	for i := 1; i <= poolConnects; i++ {
		if err := clock.Sleep(ctx, poolConnectGap); err != nil {
			return stopped, err
		}
		if i == poolConnects || redial == nil || w.net.Refuses(from, target) {
			continue
		}
		if st := redial(); st != stopped {
			return st, nil
		}
	}
	return stopped, &master.RPCError{Kind: master.Refused, Op: op, After: client.RefusedPoolCost}
}

// masterBytes is rpc's request and response size on the wire at this
// world's Mooncake version (mooncake.Profile.MasterWire); an RPC the table
// does not know counts as 256 bytes each way.
//
// In a batch call (master.BatchOf) the model calls PutStart, PutEnd and
// GetReplicaList per key where real sends one BatchPutStart, BatchPutEnd,
// BatchGetReplicaList with every key: the first key's call carries the
// batch RPC's bytes, the others none (follower: their link delays are
// real's one RPC's, already paid).
func (w *World) masterBytes(ctx context.Context, rpc master.RPC) (req, resp int64, follower bool) {
	if b := master.BatchOf(ctx); b != nil {
		if op, ok := batchRPCs[rpc.Op]; ok {
			if !b.First(op) {
				return 0, 0, true
			}
			rpc = master.RPC{Op: op, Keys: b.Keys}
		}
	}
	if req, resp, ok := w.profile.MasterWire.Bytes(rpc.Op, rpc.Keys); ok {
		return req, resp, false
	}
	return 256, 256, false
}

// followerConn is exchange's conn for a batch follower.
const followerConn = "\x00batch"

// batchRPCs: the per-key RPC the model makes → real's batch RPC.
var batchRPCs = map[string]string{"PutStart": "BatchPutStart", "PutEnd": "BatchPutEnd", "GetReplicaList": "BatchGetReplicaList"}

// masterStub is a node's coro_rpc stub for the master: every RPC crosses
// the simulated link (master.Via's pass-throughs).
type masterStub struct {
	master.Via
	w     *World
	from  string
	addr  string
	conn  string
	pool  *masterPool
	t     client.Timeouts
	clock engine.Clock
}

func (s *masterStub) call(ctx context.Context, rpc master.RPC, fn func(m *master.Master) error) error {
	op := rpc.Op
	st := stopped
	var m *master.Master
	switch {
	case s.w.ha != nil:
		if s.w.ha.takeEOF(s.from, s.conn, s.addr) {
			return &master.RPCError{Kind: master.EOF, Op: op}
		}
		if s.w.ha.vanished(s.addr) {
			return unreachableCall(ctx, s.clock, op, s.unreachableCost())
		}
		st, m = s.w.ha.at(s.addr)
	case s.w.master != nil && s.w.masterListens(s.addr):
		if s.pool.takeDead() {
			return &master.RPCError{Kind: master.EOF, Op: op}
		}
		if s.w.masterOOMKilled && s.w.masterState == stopped {
			return s.w.oomKilledCall(ctx, op)
		}
		st, m = s.w.masterState, s.w.master
	case s.w.master != nil && s.w.containers && (s.addr == s.w.masterIP || s.w.formerIPs[s.addr]):
		if s.w.takeDirectEOF(s.from, s.conn, s.clock.Now()) {
			return &master.RPCError{Kind: master.EOF, Op: op}
		}
		if s.w.formerIPs[s.addr] {
			return s.w.vanishedCall(ctx, s.clock, op)
		}
		st, m = s.w.masterState, s.w.master
	}
	if s.w.parts[s.from] {
		return s.w.partitionedCall(ctx, s.clock, s.from, s.conn, op, s.t)
	}
	redial := func() procState {
		switch {
		case s.w.ha != nil:
			st, m = s.w.ha.at(s.addr)
		case s.w.master != nil && s.w.masterListens(s.addr) && !s.w.masterOOMKilled:
			st, m = s.w.masterState, s.w.master
		default:
			st, m = stopped, nil
		}
		return st
	}
	if op == "ServiceReady" && s.w.profile.MasterConnectDirect && (st == stopped || s.w.net.Refuses(s.from, "master")) {
		// Up to 0.3.5 MasterClient::Connect is one coro_rpc_client
		// connect, no pool to reconnect: refused at once (v0.3.4.post2
		// master_client.cpp:27; real 0.3.4: 4 ms).
		return &master.RPCError{Kind: master.Refused, Op: op}
	}
	req, resp, follower := s.w.masterBytes(ctx, rpc)
	if m != nil && m == s.w.master && st == running {
		if err := s.w.rpcProtocolCall(ctx, s.clock, m, op, req, s.t); err != nil {
			return err
		}
	}
	conn := s.pool.connKey(s.from, s.conn)
	if follower {
		conn = followerConn
	}
	if err := s.w.exchange(ctx, s.clock, conn, s.from, "master", op, st, redial, s.t, req, resp); err != nil {
		return err
	}
	s.w.connUsed(s.from, s.conn, s.clock.Now())
	if s.w.ha == nil {
		s.pool.reached(s.conn)
	}
	if m != nil {
		// Version skew: the master could not decode the call, or the
		// client its answer (measured pairs only: World.Launch).
		if text, bad := mooncake.SkewFails(s.w.masterVersion, s.w.profile.Version.String(), op); bad {
			if text == mooncake.SkewInvalidArg {
				// coro_rpc's server on the arguments it could not decode
				// (real master 0.3.9: WARNING). A 0.3.14 master printed
				// nothing for the 0.3.9 client's MountSegment (real
				// 2026-12-07, version/master-newer-skew).
				mlog.Trace{T: s.w.tr, Source: "master"}.Log(mlog.Warning, "rpc route/execute error, error msg: invalid rpc arg")
			}
			return &master.RPCError{Kind: master.Incompatible, Op: op, Text: text}
		}
	}
	if op == "PutStart" && m != nil && m == s.w.master {
		if err := s.w.masterOOM(ctx, m); err != nil {
			return err
		}
	}
	return fn(m)
}

var _ master.Service = (*masterStub)(nil)

// masterListens: addr is the master's, in an address family its
// --rpc_address listens on (master.Config.RPCListens); anything else is
// refused, as the kernel refuses a port nobody listens on.
func (w *World) masterListens(addr string) bool {
	v4, v6 := w.masterCfg.RPCListens()
	if sameAddr(addr, w.masterAddr) {
		return v4
	}
	_, port, _ := strings.Cut(w.masterAddr, ":")
	// The client takes "[::1]:p" and bare "::1:p" alike (0.3.8+).
	return (addr == "[::1]:"+port || addr == "::1:"+port) && v6
}

// sameAddr compares host:port, treating localhost and 127.0.0.1 alike.
func sameAddr(a, b string) bool {
	norm := func(s string) string {
		if len(s) > 10 && s[:10] == "localhost:" {
			return "127.0.0.1:" + s[10:]
		}
		if len(s) > 8 && s[:8] == "0.0.0.0:" {
			return "127.0.0.1:" + s[8:]
		}
		return s
	}
	return norm(a) == norm(b)
}

// masterTransport implements client.MasterTransport for one node.
type masterTransport struct {
	w     *World
	from  string
	clock engine.Clock
	// conn names the caller's pooled connection (HA: each reads EOF once
	// after its master died): "" foreground, "ping", "monitor".
	conn string
	// pool is the process's client pool to a non-HA master (pool.go).
	pool *masterPool
}

func (t masterTransport) Master(addr string, to client.Timeouts) master.Service {
	s := &masterStub{w: t.w, from: t.from, addr: addr, conn: t.conn, pool: t.pool, t: to, clock: t.clock}
	s.Via = master.Via{Do: func(ctx context.Context, rpc master.RPC, call func(master.Service) error) error {
		return s.call(ctx, rpc, func(m *master.Master) error { return call(m) })
	}}
	return s
}

// curlErr is a metadata transport failure with curl's texts.
type curlErr struct{ text string }

func (e *curlErr) Error() string    { return "curl: " + e.text }
func (e *curlErr) CurlText() string { return e.text }

// metadataHTTP implements te.MetadataHTTP for one node.
type metadataHTTP struct {
	w     *World
	from  string
	clock engine.Clock
}

func (m metadataHTTP) Do(ctx context.Context, method, raw string, body []byte, auth string) (int, []byte, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return 0, nil, &curlErr{text: "URL using bad/illegal format or missing URL err: " + err.Error()}
	}
	srv, st := m.w.metadataFor(u.Host, u.Path)
	host, port := u.Hostname(), u.Port()
	refused := &curlErr{text: fmt.Sprintf("Couldn't connect to server err: Failed to connect to %s port %s after 0 ms: Couldn't connect to server", host, port)}
	if srv == nil || st == stopped {
		return 0, nil, refused
	}
	out := m.w.net.Exchange(m.from, "metadata", int64(len(raw)+len(body)), 256)
	timeout := func() (int, []byte, error) {
		if err := clockFor(ctx, m.clock).Sleep(ctx, curlTimeout); err != nil {
			return 0, nil, err
		}
		return 0, nil, &curlErr{text: fmt.Sprintf("Timeout was reached err: Operation timed out after %d milliseconds with 0 bytes received", curlTimeout.Milliseconds())}
	}
	switch out.Verdict {
	case netsim.Refuse:
		return 0, nil, refused
	case netsim.Blackhole:
		return timeout()
	case netsim.ResetPeer, netsim.Closed:
		// Closed (limit_data on the metadata link) is not measured on
		// real; curl's text for it is taken to be the reset's.
		return 0, nil, &curlErr{text: "Failure when receiving data from the peer err: Recv failure: Connection reset by peer"}
	}
	if st == paused || out.Delay >= curlTimeout {
		return timeout()
	}
	if err := clockFor(ctx, m.clock).Sleep(ctx, out.Delay); err != nil {
		return 0, nil, err
	}
	if u.Path != "/metadata" {
		return http.StatusNotFound, []byte(srv.NoRoute), nil
	}
	if code, resp, ok := srv.Authorize(auth); !ok {
		return code, resp, nil
	}
	if a := m.w.answer; a != nil && a.Matches(method, u.Query().Get("key")) {
		// A wrong-answer fault: the server answers, its store untouched.
		return a.Status, []byte(a.Body), nil
	}
	code, resp := srv.Handle(method, u.Query().Get("key"), body)
	return code, resp, nil
}

// portBinder implements te.PortBinder per node.
type portBinder struct {
	w    *World
	node string
}

func (p portBinder) Bind(_ context.Context, host string, port int) (func(), error) {
	key := fmt.Sprintf("%s/%d", p.node, port)
	if p.w.containers {
		// Each container has its own ports, but Mooncake picks its TE port
		// at random (findAvailableTcpPort), so two containers' ports differ:
		// the model keeps them apart as on one host.
		key = fmt.Sprint(port)
	}
	if p.w.ports[key] || p.w.held[port] {
		return nil, fmt.Errorf("bind %s:%d: Address already in use", host, port)
	}
	p.w.ports[key] = true
	return func() { delete(p.w.ports, key) }, nil
}

// dataPath implements te.DataPath: bytes go to the owner's address space.
type dataPath struct {
	w     *World
	from  string
	clock engine.Clock
	// opened: the segments this store's transfer engine has opened (its
	// segment_id_to_desc_map_); in P2PHANDSHAKE mode a segment not in it
	// is opened by a handshake to its endpoint first.
	opened map[string]bool
	// oneShot: this process connects anew for every TCP transfer
	// (World.oneShotTCP), taking a local port each.
	oneShot bool
	// pool: the connections it keeps instead (tcppool.go), nil if none.
	pool tcpPool
	// self finds the transfer engine this data path moves bytes for (its
	// side's once-per-module knob reads); nil or finding none: not read.
	self *dataSelf
}

// dataSelf is a data path's own transfer engine, known once the store's
// setup or TransferEngine() has made it.
type dataSelf struct{ engine func() *te.Engine }

func (s *dataSelf) get() *te.Engine {
	if s == nil || s.engine == nil {
		return nil
	}
	return s.engine()
}

// lazyKnobs are the reads the first handshake and the first TCP body of a
// process do on both sides (te.Engine.ReadHandshakeMaxLength,
// ReadTCPSliceSize): the peer's daemon reads the request, then this side
// the reply; this side writes (or reads) the body, then the peer's server
// session. Only transfers that reach the peer's data server are modelled.
func (d dataPath) lazyKnobs(peer *te.Engine, handshook bool) {
	self := d.self.get()
	for _, e := range []*te.Engine{peer, self} {
		if handshook && e != nil {
			e.ReadHandshakeMaxLength()
		}
	}
	if peer == nil || peer.SegmentProtocol() != "tcp" {
		return
	}
	for _, e := range []*te.Engine{self, peer} {
		if e != nil {
			e.ReadTCPSliceSize()
		}
	}
}

func (d dataPath) route(ctx context.Context, endpoint string, addr uint64, n int64, write bool) (*hostmem.Space, error) {
	if err := d.w.loopbackElsewhere(d.from, endpoint); err != nil {
		return nil, err
	}
	if err := d.w.unresolvedElsewhere(d.from, endpoint); err != nil {
		return nil, err
	}
	ep := d.w.endpoint(d.from, endpoint)
	var now *hostmem.Space
	if ep != nil {
		now = ep.mem
	}
	if err := d.pool.closed(endpoint, now, write); err != nil {
		return nil, err
	}
	if ep == nil {
		// Its process is gone: nothing listens on its port. A segment this
		// engine never opened is opened first, in P2PHANDSHAKE mode by
		// exchangeMetadata with the endpoint, whose connect() is refused
		// (transfer_metadata.cpp getSegmentDesc, v0.3.4.post2 …
		// v0.3.12.post1; real 0.3.13.post1: "SocketHandShakePlugin:
		// connect()…: Connection refused [111]"); an opened one fails at
		// the data connection (TcpTransport's lines).
		if d.w.handshakeMetadata() && !d.opened[endpoint] {
			return nil, &te.HandshakeRefused{Endpoint: endpoint, Connect: te.ConnectAddr(endpoint)}
		}
		return nil, &te.TransferRefused{Endpoint: endpoint}
	}
	handshook := d.w.handshakeMetadata() && d.opened != nil && !d.opened[endpoint]
	if d.opened != nil {
		d.opened[endpoint] = true
	}
	var bad error
	if r, ok := ep.mem.Find(addr); !ok || !r.Contains(addr, n) {
		// The endpoint's name is another process's too (one local_hostname
		// on etcd: the last rpc_meta wins) and its server has nothing there.
		bad = &te.TransferBadAddress{Endpoint: endpoint, Addr: addr, Server: ep.log}
	}
	if ep.node == d.from {
		if bad != nil {
			return nil, bad
		}
		return ep.mem, nil // local memcpy
	}
	if d.w.clientMem != nil && ep.mem == d.w.clientMem && d.w.clientState == paused || d.w.paused[ep.mem] {
		// SIGSTOP'd mooncake_client: its kernel still completes the TCP
		// handshake and takes the request's bytes, nothing answers. Before
		// the v2 framing's status frame a write waits for no answer, so one
		// the socket buffers hold completes (real 0.3.9: a page's put to a
		// paused peer is 0; the bytes land when it resumes).
		if !write || d.w.profile.TCPStatusDeadline || n > kernelBufferedWrite || bad != nil {
			// Gone: killed while frozen, its kernel resets the connection.
			mem, w, from := ep.mem, d.w, d.from
			gone := func() bool { e := w.endpoint(from, endpoint); return e == nil || e.mem != mem }
			return nil, &te.TransferStalled{Endpoint: endpoint, Gone: gone}
		}
		return ep.mem, nil
	}
	if d.pool[endpoint] == nil && d.w.net.DropsConnect(d.from, ep.node) {
		// Every packet towards the peer is dropped: the connect's SYNs go
		// unanswered (an open pooled connection meets the blackhole below).
		return nil, &te.TransferUnanswered{Endpoint: endpoint, After: synGiveUp}
	}
	if d.oneShot && !d.w.connectEphemeral(d.from, endpoint) {
		return nil, &te.TransferRefused{Endpoint: endpoint, Reason: te.NoLocalPort}
	}
	var req, resp int64 = 64, n
	if write {
		req, resp = n, 64
	}
	out := d.w.net.Exchange(d.from, ep.node, req, resp)
	switch out.Verdict {
	case netsim.Refuse:
		return nil, &te.TransferRefused{Endpoint: endpoint}
	case netsim.ResetPeer, netsim.Closed:
		return nil, fmt.Errorf("transfer to %s: %s", endpoint, out.Verdict)
	case netsim.Blackhole:
		if err := d.clock.Sleep(ctx, transferTimeout); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("transfer to %s: timeout", endpoint)
	}
	if err := d.clock.Sleep(ctx, out.Delay); err != nil {
		return nil, err
	}
	if d.w.profile.TCPServerValidatesAddr && ep.eng.SegmentProtocol() == "tcp" && !ep.eng.IsRegistered(addr, n) {
		// The server's readHeader checks the address first: an unmapped
		// one is no buffer of its either.
		return nil, &te.TransferAddrRejected{Endpoint: endpoint, Addr: addr, Size: n, Server: ep.log}
	}
	if bad != nil {
		return nil, bad
	}
	d.lazyKnobs(ep.eng, handshook)
	d.pool.keep(ctx, endpoint, ep.mem)
	return ep.mem, nil
}

func (d dataPath) Write(ctx context.Context, endpoint string, addr uint64, c hostmem.Content) error {
	mem, err := d.route(ctx, endpoint, addr, c.Size, true)
	if err != nil {
		return err
	}
	return mem.WriteContent(addr, c)
}

func (d dataPath) Read(ctx context.Context, endpoint string, addr uint64, size int64) (hostmem.Content, error) {
	mem, err := d.route(ctx, endpoint, addr, size, false)
	if err != nil {
		return hostmem.Content{}, err
	}
	return mem.ReadContent(addr, size)
}

// clientTransport implements client.RealClientTransport (dummy →
// mooncake_client).
type clientTransport struct {
	w     *World
	from  string
	clock engine.Clock
}

func (c clientTransport) RealClient(addr string, t client.Timeouts) client.RealClientService {
	return &standaloneStub{w: c.w, from: c.from, addr: addr, t: t, clock: c.clock}
}

type standaloneStub struct {
	w     *World
	from  string
	addr  string
	t     client.Timeouts
	clock engine.Clock
}

func (s *standaloneStub) call(ctx context.Context, op string, n int64, fn func(sa *client.Standalone) error) error {
	st := stopped
	var sa *client.Standalone
	if s.w.standalone != nil && sameAddr(s.addr, s.w.clientAddr) && !s.w.clientLoopbackOnlyFrom(s.from) {
		st, sa = s.w.clientState, s.w.standalone
	}
	if err := s.w.exchange(ctx, s.clock, "", s.from, "client", op, st, nil, s.t, n, 64); err != nil {
		return err
	}
	// The dummy's request deadline runs while mooncake_client works on the
	// call (its own master RPCs included): mooncake_client's 30 s master
	// timeout starts after the dummy's 30 s one, so the dummy gives up
	// first ("RPC call failed: Connection timed out", RPC_FAIL; real
	// 0.3.12.post1, explore seed 16456) and drops the late answer.
	start := s.clock.Now()
	if err := fn(sa); err != nil {
		return err
	}
	if s.t.Request > 0 && s.clock.Now()-start >= s.t.Request {
		return &master.RPCError{Kind: master.RequestTimeout, Op: op, After: s.t.Request}
	}
	return nil
}

func (s *standaloneStub) ServiceReady(ctx context.Context) error {
	return s.call(ctx, "service_ready", 64, func(sa *client.Standalone) error { return sa.ServiceReady(ctx) })
}
func (s *standaloneStub) RegisterShm(ctx context.Context, dummy string, shm hostmem.Shm, isLocal bool) (rc int, err error) {
	if s.w.otherPod(s.from) {
		return -1, client.IPCRefused{} // the abstract socket is in mooncake_client's namespace
	}
	err = s.call(ctx, "map_shm", 64, func(sa *client.Standalone) (e error) { rc, e = sa.RegisterShm(ctx, dummy, shm, isLocal); return })
	return
}
func (s *standaloneStub) Ping(ctx context.Context, dummy string) error {
	return s.call(ctx, "ping", 64, func(sa *client.Standalone) error { return sa.Ping(ctx, dummy) })
}
func (s *standaloneStub) PutFrom(ctx context.Context, dummy, key string, ptr uint64, size int64, b *client.BufferBatch) (rc int, err error) {
	err = s.call(ctx, "put_dummy_helper", 64, func(sa *client.Standalone) (e error) { rc, e = sa.PutFrom(ctx, dummy, key, ptr, size, b); return })
	return
}
func (s *standaloneStub) GetInto(ctx context.Context, dummy, key string, ptr uint64, size int64, b *client.BufferBatch) (rc int, err error) {
	err = s.call(ctx, "get_into_dummy_helper", 64, func(sa *client.Standalone) (e error) { rc, e = sa.GetInto(ctx, dummy, key, ptr, size, b); return })
	return
}
func (s *standaloneStub) IsExist(ctx context.Context, key string) (rc int, err error) {
	err = s.call(ctx, "is_exist", 64, func(sa *client.Standalone) (e error) { rc, e = sa.IsExist(ctx, key); return })
	return
}

// MountLocalDiskSegment is the SSD-offload RPC (master.OffloadService),
// which only the model master answers.
func (s *masterStub) MountLocalDiskSegment(ctx context.Context, id master.UUID) error {
	return s.call(ctx, master.RPC{Op: "MountLocalDiskSegment"}, func(m *master.Master) error { return m.MountLocalDiskSegment(ctx, id) })
}

// OffloadObjectHeartbeat is the FileStorage heartbeat's RPC
// (master.OffloadService).
func (s *masterStub) OffloadObjectHeartbeat(ctx context.Context, id master.UUID) (objs []master.OffloadObject, err error) {
	err = s.call(ctx, master.RPC{Op: "OffloadObjectHeartbeat"}, func(m *master.Master) (e error) {
		objs, e = m.OffloadObjectHeartbeat(ctx, id)
		return
	})
	return
}

// NotifyOffloadSuccess is a written bucket's report (master.OffloadService).
func (s *masterStub) NotifyOffloadSuccess(ctx context.Context, id master.UUID, endpoint string, objs []master.OffloadObject) error {
	return s.call(ctx, master.RPC{Op: "NotifyOffloadSuccess"}, func(m *master.Master) error { return m.NotifyOffloadSuccess(ctx, id, endpoint, objs) })
}

// EvictDiskReplicas is the bucket backend's eviction report
// (master.OffloadService): one RPC, a result a key.
func (s *masterStub) EvictDiskReplicas(ctx context.Context, id master.UUID, keys []string) (errs []error) {
	err := s.call(ctx, master.RPC{Op: "BatchEvictDiskReplica"}, func(m *master.Master) error {
		errs = m.EvictDiskReplicas(ctx, id, keys)
		return nil
	})
	if err != nil {
		errs = make([]error, len(keys))
		for i := range errs {
			errs[i] = err
		}
	}
	return errs
}

var _ master.OffloadService = (*masterStub)(nil)

// handshakeMetadata: the world's transfer engines open segments by the
// P2P handshake (no metadata service).
func (w *World) handshakeMetadata() bool {
	return w.spec.Metadata == "" || w.spec.Metadata == te.P2PHandshake
}
