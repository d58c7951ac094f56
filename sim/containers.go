package sim

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/models/client"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/sim/netsim"
)

// A sim container world (Options.Containers, `faultlab run --engine sim
// --containers`) models the real engine's: every party — master, metadata
// server, mooncake_client, each node's SGLang process — in its own
// container on one network, dialled by its role name; container faults act
// on those parties in Mooncake terms (what real showed in containers,
// docs/REAL-FINDINGS.md §23):
//
//   - stop, kill: the party's process is gone, its state with it (a master
//     restarted after it has no objects); start: a fresh process.
//   - restart: kill + start; a new container serves 2 s later (measured).
//     Parties dial the master through toxiproxy, which resolves the role
//     name on every connection; one given the master's own address
//     ({{master_ip}}) reads end of file on its open connections and finds
//     the new container at the old address (Docker gives the freed
//     address back), so nobody is left dialling a dead address.
//   - pause: every thread frozen; peers see silence (a paused server).
//   - partition (a node's SGLang container off the world network): its
//     links to other parties are silent both ways. Toward the master, a
//     pooled connection still open (used within the pool's idle timeout)
//     goes silent: its next RPC waits the request timeout (RPC_TIMEOUT);
//     any other RPC needs a new connection, whose name lookup fails in a
//     container with no network: "Client not available", RPC_FAIL (real
//     0.3.13.post1: health_check 0 20 s after the partition, 2 after the
//     first ping timed out at +30.7 s; batch calls -900).
//     Partitioning master, metadata or mooncake_client is not modelled:
//     toxiproxy in front of them accepts and drops, which real showed is
//     no partition (§23).
//   - memory: a limit below the party's usage is refused (cgroup v1, where
//     real ran: runc "unable to set memory limit"); above it the master
//     grows with its objects and a put that takes it over the limit gets
//     it OOM-killed (masterOOM).
//
// Topology in containers: SGLang's pods and mooncake_client's (sidecar or
// not, otherPod), a loopback local_hostname per pod (loopbackElsewhere),
// a local_hostname no DNS on the network knows (unresolvedElsewhere),
// /dev/shm sizes without effect (Mooncake's shared memory is a memfd).
//
// Outside a container world the scheduler makes a container fault a skip.

// Capabilities is the world's, for schedule.Lower: sim simulates every link
// mode; container worlds are modelled when the engine's option says so.
func (in injector) Capabilities() faults.Capabilities {
	return faults.Capabilities{Containers: in.w.containers}
}

// masterUsage is the master's modelled memory use with extra objects
// more: its size after start plus its growth per object
// (Profile.MasterContainerRSS, MasterBytesPerKey; segments and clients are
// not counted).
func (w *World) masterUsage(extra int) int64 {
	n := extra
	if w.master != nil && w.masterState != stopped {
		n += w.master.Objects()
	}
	return w.profile.MasterContainerRSS + int64(n)*w.profile.MasterBytesPerKey
}

// masterOOM: a put RPC whose keys take the master over its container's
// memory limit gets it OOM-killed while it handles the RPC — the process
// gone, as kill — and the RPC reads end of file (real 0.3.13.post1, limit
// 40 MiB set at 33.5 MiB, one BatchPutStart of 15,996 keys: "Batch RPC
// call failed: End of file", every key -900; docker inspect
// State.OOMKilled true, exit 137). A batch is judged once, on its first
// key, with all its keys, as real's one RPC.
func (w *World) masterOOM(ctx context.Context, m *master.Master) error {
	if !w.containers || w.masterMemLimit == 0 {
		return nil
	}
	n, op := 1, "PutStart"
	if b := master.BatchOf(ctx); b != nil {
		if b.Started {
			return nil
		}
		b.Started = true
		n, op = b.N, "BatchPutStart"
	}
	if w.masterUsage(n) <= w.masterMemLimit {
		return nil
	}
	w.containerGone("master")
	w.masterOOMKilled = true
	return &master.RPCError{Kind: master.EOF, Op: op}
}

// oomKilledCall is a master RPC through toxiproxy after the kernel killed
// the master: nobody told the proxy, so it accepts, fails to dial the
// vanished upstream and resets the connection at once (real 0.3.13.post1:
// "RPC call failed: Connection reset by peer", "Batch RPC call failed:
// Connection reset by peer", batch calls -900 in 1.6–2.4 ms; unlike a
// harness kill, whose proxies refuse).
func (w *World) oomKilledCall(ctx context.Context, op string) error {
	if op == "PutStart" && master.BatchOf(ctx) != nil {
		op = "BatchPutStart"
	}
	return &master.RPCError{Kind: master.Reset, Op: op}
}

// dockerMinMemory is the smallest limit docker update accepts (6 MB).
const dockerMinMemory = 6 * 1024 * 1024

// containerCheck says which container faults this world cannot model.
func (w *World) containerCheck(p faults.ContainerPrimitive) error {
	for _, t := range p.Targets {
		if err := w.containerTargetCheck(t, p); err != nil {
			return err
		}
	}
	return nil
}

func (w *World) containerTargetCheck(t string, p faults.ContainerPrimitive) error {
	f := p.Fault
	if (p.Action == "partition" || p.Action == "reconnect") && (t == "master" || t == "metadata" || t == ClientNode) {
		return engine.Unsupportedf("sim: partition of %s is not modelled: toxiproxy in front of it accepts and drops (real: not a partition, docs/REAL-FINDINGS.md §23); partition a node", t)
	}
	if p.Action == "memory" && t != "master" {
		return engine.Unsupportedf("sim: memory limit on %s: its usage in a container was not measured (the master's was)", t)
	}
	switch t {
	case "master":
		if w.spec.Master == nil {
			return fmt.Errorf("sim: %s: the topology has no master", f)
		}
		if w.ha != nil || w.spec.Master.HA {
			return engine.Unsupportedf("sim: %s: HA masters in containers are not modelled", f)
		}
		return nil
	case "metadata":
		if w.spec.Metadata != "http" {
			return fmt.Errorf("sim: %s: the topology has no metadata server of its own (metadata %q)", f, w.spec.Metadata)
		}
	case ClientNode:
		if w.spec.Client == nil {
			return fmt.Errorf("sim: %s: the topology has no mooncake_client", f)
		}
	default:
		known := false
		for _, n := range w.nodes {
			known = known || n.Name == t
		}
		if !known {
			return fmt.Errorf("sim: %s: no party %q (master, metadata, client or a node)", f, t)
		}
		switch p.Action {
		case "partition", "reconnect":
		case "start", "restart", "replace":
			return fmt.Errorf("sim: %s: a node's SGLang process is not restarted by a fault (start a new one with a step)", f)
		default:
			return engine.Unsupportedf("sim: %s of a node's SGLang container is not modelled (partition is)", p.Action)
		}
	}
	return nil
}

// containerInject injects a container fault on every target and returns
// its undo on every target (faults.ContainerUndo).
func (w *World) containerInject(p faults.ContainerPrimitive) (func(context.Context) error, error) {
	var undo []func()
	for _, t := range p.Targets {
		u, err := w.containerAction(t, p.Action, p.Bytes)
		if err != nil {
			return nil, err
		}
		if u != nil {
			undo = append(undo, u)
		}
	}
	if len(undo) == 0 {
		return nil, nil
	}
	return func(context.Context) error {
		for _, u := range undo {
			u()
		}
		return nil
	}, nil
}

// containerAction acts on one party; the returned func is its undo.
func (w *World) containerAction(t, action string, bytes int64) (func(), error) {
	switch action {
	case "partition":
		if w.parts[t] {
			return nil, nil
		}
		// A partition is silence both ways on every link of the party.
		eff := faults.Silence()
		in, out := w.net.Add(netsim.Any, t, eff), w.net.Add(t, netsim.Any, eff)
		w.parts[t] = true
		return func() {
			w.net.Remove(in)
			w.net.Remove(out)
			delete(w.parts, t)
		}, nil
	case "reconnect":
		return nil, nil // the partition's own heal reconnects
	case "memory":
		if bytes < dockerMinMemory {
			return nil, fmt.Errorf("sim: docker update %s: Minimum memory limit allowed is 6MB", t)
		}
		if usage := w.masterUsage(0); w.masterState != stopped && bytes < usage {
			return nil, fmt.Errorf("sim: docker update %s: unable to set memory limit to %d (current usage: %d)", t, bytes, usage)
		}
		w.masterMemLimit = bytes
		return nil, nil
	}
	// Process actions on a server: kill/stop = gone (state lost); a
	// start is a new container, serving containerStartCost later.
	switch action {
	case "stop", "kill":
		w.containerGone(t)
		return func() { w.containerStart(t) }, nil
	case "start":
		w.containerStart(t)
	case "restart":
		w.containerGone(t)
		w.containerStart(t)
	case "replace":
		w.containerGone(t)
		if t == "master" {
			w.formerIPs[w.masterIP] = true
			w.masterIP = nextIP(w.masterIP)
		}
		w.containerStart(t)
	case "pause":
		w.process(t, "pause")
		return func() { w.process(t, "resume") }, nil
	case "unpause":
		w.process(t, "resume")
	default:
		return nil, fmt.Errorf("sim: container action %q", action)
	}
	return nil, nil
}

// containerStartCost is from a container's creation to its server
// serving (real 0.3.13.post1: master restarted at 30.002 s, "Master
// service started" at 32.000 s).
const containerStartCost = 2 * time.Second

// MasterIP is the master container's first address in a container world
// ({{master_ip}}). A restarted container gets it back: Docker (20.10)
// hands out the lowest free address of the network, and the old
// container's is free again (real: 172.27.0.3 to a container created
// after the one holding it was removed). A replaced one (action replace:
// the new container started while the old one holds its address) gets
// the next (nextIP).
const MasterIP = "172.18.0.3:50051"

// nextIP is the address after ip:port on the network.
func nextIP(addr string) string {
	host, port, _ := strings.Cut(addr, ":")
	i := strings.LastIndexByte(host, '.')
	var last int
	fmt.Sscan(host[i+1:], &last)
	return fmt.Sprintf("%s.%d:%s", host[:i], last+1, port)
}

// vanishedCost is an RPC to the address of a replaced master container,
// which nobody holds now: "Client not available", RPC_FAIL (real
// 0.3.13.post1, master replaced, two runs: 12.276 to 12.322 s per call,
// five measured).
const vanishedCost = 12280 * time.Millisecond

// vanishedCall is a master RPC to a vanished container address.
func (w *World) vanishedCall(ctx context.Context, clock engine.Clock, op string) error {
	if err := clock.Sleep(ctx, vanishedCost); err != nil {
		return err
	}
	return &master.RPCError{Kind: master.Refused, Op: op, After: vanishedCost}
}

// containerGone: the server's process is killed with its container.
// Connections straight to the master's container address (not through
// toxiproxy) read end of file once each (real: "RPC call failed: End of
// file" on the ping and the foreground connections).
func (w *World) containerGone(t string) {
	if t == "master" && w.masterState != stopped {
		for _, b := range w.beats {
			if b.rc != nil && b.rc.MasterAddr() == w.masterIP {
				w.directEOF[connKey(b.rc.Node(), "ping")] = true
				w.directEOF[connKey(b.rc.Node(), "")] = true
			}
		}
	}
	w.process(t, "stop")
}

// containerStart starts a stopped server in a new container.
func (w *World) containerStart(t string) {
	if t == "master" {
		// A new container: no limit (realengine: startServer), and the
		// harness holds the proxy while it starts.
		w.masterMemLimit, w.masterOOMKilled = 0, false
	}
	w.k.After(containerStartCost, "container start "+t, func() { w.process(t, "start") })
}

// takeDirectEOF reports (once) that node's pooled connection conn to the
// master's container address saw the master die, unless the pool closed
// it idle before (real: the foreground connection, idle 60 s, did not
// read EOF; the new one it made reached the new master).
func (w *World) takeDirectEOF(node, conn string, now time.Duration) bool {
	k := connKey(node, conn)
	if !w.directEOF[k] {
		return false
	}
	delete(w.directEOF, k)
	c, ok := w.conns[k]
	return ok && now-c.last <= poolIdleTimeout
}

// otherPod: a process on node runs in another network namespace than
// mooncake_client (topology mooncake_client.sidecar: false in a container
// world), so mooncake_client's abstract IPC socket does not exist there:
// the dummy's shm registration is refused (real 0.3.11.post1 and
// 0.3.13.post1 in containers, Mooncake #2937).
func (w *World) otherPod(node string) bool {
	return w.containers && w.spec.Client != nil && w.spec.Client.OwnPod && node != ClientNode
}

// clientLoopbackOnlyFrom: mooncake_client ≤ 0.3.10.post1 serves its RPC on
// 127.0.0.1 only, so a process in another pod is refused (real 0.3.9 in
// containers: "client_id 1 failed:Connection refused", "Dummy Client not
// available").
func (w *World) clientLoopbackOnlyFrom(node string) bool {
	return w.otherPod(node) && w.profile.RealClientRPCLoopback
}

// poolIdleTimeout is how long coro_rpc's client pool keeps an unused
// connection (real 0.3.13.post1 partitioned: the foreground connection,
// idle 90 s, was not reused — RPC_FAIL, not the RPC_TIMEOUT of the ping
// connection in use every second).
const poolIdleTimeout = 30 * time.Second

// resolveFailCost is getaddrinfo's "Temporary failure in name resolution"
// in a container disconnected from every network (measured: 10.0 s,
// Docker's embedded DNS at 127.0.0.11 unanswered).
const resolveFailCost = 10 * time.Second

// partitionConnectCost is one RPC needing a new connection from a
// partitioned container: the client pool's connects (RefusedPoolCost's
// four), each after a failed name lookup. Real 0.3.13.post1 took 31 to
// 71 s per such RPC (6 measured: 31, 40, 47, 70, 70, 71 s; lookups of
// concurrent threads appear to queue); the model takes 44.3 s.
const partitionConnectCost = 4*resolveFailCost + client.RefusedPoolCost

// pooledConn is one pooled master connection of a node (conn "" the
// foreground, "ping", "monitor").
type pooledConn struct {
	last   time.Duration // its last answered RPC
	silent bool          // timed out in a partition: closed
}

func connKey(node, conn string) string { return node + "/" + conn }

// connUsed records an answered RPC on a pooled connection.
func (w *World) connUsed(node, conn string, now time.Duration) {
	w.conns[connKey(node, conn)] = pooledConn{last: now}
}

// partitionedCall is a master RPC from a partitioned node.
func (w *World) partitionedCall(ctx context.Context, clock engine.Clock, node, conn, op string, t client.Timeouts) error {
	k := connKey(node, conn)
	c, ok := w.conns[k]
	if ok && !c.silent && clock.Now()-c.last <= poolIdleTimeout {
		// The open connection: the request goes out, nothing comes back.
		c.silent = true
		w.conns[k] = c
		if err := clock.Sleep(ctx, t.Request); err != nil {
			return err
		}
		return &master.RPCError{Kind: master.RequestTimeout, Op: op, After: t.Request}
	}
	if err := clock.Sleep(ctx, partitionConnectCost); err != nil {
		return err
	}
	return &master.RPCError{Kind: master.Refused, Op: op, After: partitionConnectCost}
}

// loopbackElsewhere: in a container world an endpoint named on the
// loopback (SGLang's default local_hostname "localhost") is each
// container's own, so from another node the handshake reaches the
// caller's loopback, where nothing listens on that port (real 0.3.13.post1:
// "SocketHandShakePlugin: connect()127.0.0.1:16941: Connection refused").
func (w *World) loopbackElsewhere(from, endpoint string) error {
	if !w.containers {
		return nil
	}
	host, port, ok := strings.Cut(endpoint, ":")
	if !ok || (host != "localhost" && !strings.HasPrefix(host, "127.")) {
		return nil
	}
	ep := w.endpoint(from, endpoint)
	if ep == nil {
		// Its process is gone: the gone peer's paths (a pooled
		// connection, a refused connect) decide, wherever it ran.
		return nil
	}
	if w.netns(ep.node) == w.netns(from) {
		return nil
	}
	connect := host
	if host == "localhost" {
		connect = "127.0.0.1"
	}
	return &te.HandshakeRefused{Endpoint: endpoint, Connect: connect + ":" + port}
}

// netns names a node's network namespace in a container world: with a
// mooncake_client sidecar, the drivers and mooncake_client share the pod's
// (realengine: World.pod); otherwise each node has its own container's.
func (w *World) netns(node string) string {
	if w.spec.Client != nil && !w.spec.Client.OwnPod {
		return "pod"
	}
	return node
}

// unresolvedElsewhere: in a container world a remote endpoint's host must
// be a name Docker's embedded DNS knows on the world network (a party's
// alias) or an address; any other name — a pod's own hostname that no
// service names — fails getaddrinfo in the caller at once (real
// 0.3.13.post1: "SocketHandShakePlugin: failed to get IP address of peer
// server sglang-tp1-0:<port>", 3 ms, every put -800). A segment of the
// caller's own is a local copy: no handshake, no lookup.
func (w *World) unresolvedElsewhere(from, endpoint string) error {
	if !w.containers {
		return nil
	}
	host, port, ok := strings.Cut(endpoint, ":")
	if !ok || w.resolvable(host) {
		return nil
	}
	ep := w.endpoint(from, endpoint)
	if ep == nil {
		// Its process is gone: the gone peer's paths (a pooled
		// connection, a refused connect) decide, wherever it ran.
		return nil
	}
	if w.netns(ep.node) == w.netns(from) {
		return nil
	}
	return &te.HandshakeUnresolved{Endpoint: endpoint, Host: host, Port: port}
}

// resolvable: host is an address, a loopback name (loopbackElsewhere's),
// or a network alias of a party's container: toxiproxy, master,
// metadata, client (mooncake_client or the pod of drivers sharing its
// namespace), a node running in its own container (realengine: startIn).
func (w *World) resolvable(host string) bool {
	if net.ParseIP(host) != nil || host == "localhost" || host == "toxiproxy" {
		return true
	}
	switch host {
	case "master":
		return w.spec.Master != nil
	case "metadata":
		return w.spec.Metadata == "http"
	case ClientNode:
		return w.spec.Client != nil
	}
	for _, n := range w.nodes {
		if n.Name == host {
			return w.netns(host) == host
		}
	}
	return false
}
