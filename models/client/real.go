package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// A modelled process death (glog CHECK/FATAL, segfault) is returned as
// *engine.ProcessDied, deliberately not a *engine.PyError: SGLang sees its
// scheduler die, not an exception. Mooncake ≤ 0.3.5 aborts when the
// transfer engine cannot start; 0.3.9 segfaults in the refused auto-port
// loop; mooncake_client LOG(FATAL)s on a failed setup.
func abort(msg string) error { return &engine.ProcessDied{Signal: "SIGABRT", Reason: msg} }

func segfault(msg string) error { return &engine.ProcessDied{Signal: "SIGSEGV", Reason: msg} }

// Heartbeat timing of Client::PingThreadMain.
const (
	PingInterval     = 1000 * time.Millisecond
	MaxPingFailCount = 3
	setupRetrySleep  = 100 * time.Millisecond
	threadJoinCost   = 1000 * time.Millisecond
	// CreateCost is Client::Create's own work before its first master RPC
	// (metrics, client_id, coro_rpc pool). Real 0.3.13.post1, HTTP metadata
	// refused, 20 attempts: 2157 / 2322 ms against 2000 ms of retry sleeps,
	// 8–16 ms an attempt (docs/REAL-FINDINGS.md §20).
	CreateCost = 10 * time.Millisecond
	// SetupCost is the rest of a healthy setup(): local buffer and segment
	// allocation, transfer engine registration, MountSegment. Real tcp,
	// 1 GiB segment + 16 MiB buffer, 0.3.9 / 0.3.11.post1 / 0.3.13.post1:
	// median 45 ms of setup() (25 calls, 27–138 ms on a loaded 2-core
	// machine), minus CreateCost (docs/REAL-FINDINGS.md §20).
	SetupCost = 35 * time.Millisecond
	// FileStorageCost is what enable_ssd_offload adds to setup(): real
	// 0.3.11.post1, 0.3.12.post1, 0.3.14 took 874–897 ms where the same
	// setup without it takes 45 (fresh .ci/run 19, docs/MEASUREMENTS.md),
	// the client buffer's 1342177280 bytes allocated.
	FileStorageCost = 840 * time.Millisecond
)

// RealClient is MooncakeDistributedStore backed by RealClient
// (real_client.cpp) and Client (client_service.cpp). Not safe for
// concurrent use: a wall-clock driver must serialise calls, Heartbeat
// included.
type RealClient struct {
	// died: the process died inside a transfer (an RDMA endpoint's
	// teardown); the Python call that made it returns the death.
	died     error
	d        Deps
	p        mooncake.Profile
	t        Timeouts
	ms       master.Service
	msAddr   string
	te       *te.Engine
	id       master.UUID
	hostname string // local_hostname actually used (host:port)
	release  func()
	segments []master.Segment
	localBuf *engine.Buffer
	buffers  []uint64 // register_buffer'd addresses
	// arenaTried: initializeGlobalArena ran (once per process,
	// hugepage.go).
	arenaTried bool
	// environBuilt: Environ's singleton has read the env (environ.go).
	environBuilt bool

	// onBeat is another thread of the process that wakes once a second
	// (mooncake_client's dummy-client monitor): the ping thread's
	// iterations run it. selfOffloadRead, when set, is the read of a
	// LOCAL_DISK replica whose offload RPC server is this process's own
	// blocked one (standalone_offload.go).
	onBeat          func(context.Context)
	selfOffloadRead func(ctx context.Context, key string, r master.Replica) (hostmem.Content, mooncake.ErrorCode)
	offloadAtRPC    string // the offload endpoint when it is not a server of its own
	diskReads       int    // reads of a LOCAL_DISK replica begun (offloadRead)

	initialized bool
	closed      bool
	pinging     bool
	pingSince   time.Duration // when the ping thread started (its sleep phase)
	pingOK      bool
	pingFails   int
	refused     bool // the last connect was refused
	// haEndpoints: the etcd endpoints of an "etcd://" master address (HA);
	// haReconnect: the ping thread failed MaxPingFailCount times and reads
	// the master view next (models/client/ha.go).
	haEndpoints string
	haReconnect bool
	// batches counts failed transfer batches (their log lines' ids).
	batches int64
	// resetAt: when a READ found each endpoint's process dead under it
	// (tcpsession.go).
	resetAt map[string]time.Duration
	// batchFails are this batch_put_from's keys whose transfer failed
	// (RDMA: rdmaTransfer; a TCP connect: batchTransferFailed), with
	// BatchPut's failure context.
	batchFails []batchFail
	// segPending / rpcMetaPending: a remount's re-publication failed and
	// the next plain ping retries it (segment_desc_publish_pending_,
	// rpc_meta_publish_pending_, v0.3.12+).
	segPending, rpcMetaPending bool
	// remounting: a remount_segment thread's future is valid (until the
	// ping loop's next top after it ends); mountLocked: it runs and holds
	// mounted_segments_mutex_.
	remounting, mountLocked bool
	// fs is the SSD offload's FileStorage (enable_ssd_offload), nil
	// without it.
	fs *fileStorage
	// rootFS is --root_fs_dir's storage backend (fsreplica.go).
	rootFS rootFSBackend
	// leaked: failed setup attempts' engines whose metadata leaked
	// (te.Engine.Leaked): their ports stay bound until the process ends.
	leaked []*te.Engine

	// laneGiveUps: TCP lanes' connects still waiting for a SYN-ACK after
	// the store gave up on their transfer (connectUnanswered); their
	// lines are logged from the heartbeat once the kernel gives up.
	laneGiveUps []laneGiveUp
}

// NewRealClient is MooncakeDistributedStore() (nothing happens yet).
func NewRealClient(d Deps) *RealClient {
	if d.Log == nil {
		d.Log = mlog.Discard{}
	}
	return &RealClient{d: d, p: d.Profile, t: timeoutsFromEnv(d.Profile, d.Env)}
}

func timeoutsFromEnv(p mooncake.Profile, env map[string]string) Timeouts {
	t := DefaultTimeouts
	if !p.RPCTimeoutEnv {
		return t
	}
	// atoll (mooncake.Knobs): "2s" is 2 ms, garbage is 0.
	if v, ok := env["MC_RPC_TIMEOUT_MS"]; ok {
		t.Request = time.Duration(mooncake.ParseKnob(p.Version, "MC_RPC_TIMEOUT_MS", v, true).Int) * time.Millisecond
	}
	if v, ok := env["MC_RPC_CONNECT_TIMEOUT_MS"]; ok {
		t.Connect = time.Duration(mooncake.ParseKnob(p.Version, "MC_RPC_CONNECT_TIMEOUT_MS", v, true).Int) * time.Millisecond
	}
	return t
}

// Timeouts returns the effective RPC timeouts.
func (c *RealClient) Timeouts() Timeouts { return c.t }

func (c *RealClient) logf(level, format string, a ...any) {
	c.d.Log.Log(level, fmt.Sprintf(format, a...))
}

// rpcLog prints what MasterClient::invoke_rpc (prefix "") or
// DummyClient::invoke_rpc (prefix "Dummy ") logs for a transport error.
// Texts from real runs: refused → "Client not available" once the pool
// gives up; an unanswered request → "RPC call failed: Connection timed out"
// (0.3.9), "RPC call timed out: Connection timed out" (0.3.12+, with
// RPC_TIMEOUT).
func rpcLog(log mlog.Logger, p mooncake.Profile, prefix string, err error) {
	re, ok := master.AsRPCError(err)
	if !ok {
		return
	}
	switch re.Kind {
	case master.Refused, master.Unreachable:
		log.Log(mlog.Error, prefix+"Client not available")
	case master.ConnectTimeout, master.RequestTimeout:
		if re.Kind == master.RequestTimeout && p.RPCReadHeadLogged {
			log.Log(mlog.Error, "read rpc head failed, error msg:Operation aborted.. close the socket.value=125")
		}
		if p.RPCTimeoutCode {
			log.Log(mlog.Error, "RPC call timed out: Connection timed out")
		} else {
			log.Log(mlog.Error, "RPC call failed: Connection timed out")
		}
	case master.Reset:
		if p.RPCReadHeadLogged {
			log.Log(mlog.Error, "read rpc head failed, error msg:Connection reset by peer. close the socket.value=104")
		}
		if strings.HasPrefix(re.Op, "Batch") {
			log.Log(mlog.Error, "Batch RPC call failed: Connection reset by peer")
		} else {
			log.Log(mlog.Error, "RPC call failed: Connection reset by peer")
		}
	case master.Incompatible:
		// Version skew (mooncake.SkewFails): coro_rpc's decoding error,
		// up to 0.3.5 in the method's own words.
		if f, ok := rpcFailPerOp[re.Op]; ok && p.RPCFailPerOp {
			log.Log(mlog.Error, f+re.Text)
		} else {
			log.Log(mlog.Error, "RPC call failed: "+re.Text)
		}
	case master.EOF:
		// MasterClient::invoke_batch_rpc says "Batch RPC call failed".
		if strings.HasPrefix(re.Op, "Batch") {
			log.Log(mlog.Error, "Batch RPC call failed: End of file")
		} else {
			log.Log(mlog.Error, "RPC call failed: End of file")
		}
	}
}

func (c *RealClient) rpcLog(err error) {
	if re, ok := master.AsRPCError(err); ok && re.Kind == master.Refused && c.p.RefusedPoolLogged {
		// coro_io::client_pool's reconnect, as the bundled easylog logs it
		// (client_pool.hpp, coro_rpc_client.hpp; yalantinglibs 0.5.6): a
		// connect and three retries, then the pool gives up. The lines
		// come when the call fails, not at each connect's time.
		for i := 0; i < 4; i++ {
			c.logf(mlog.Warning, "client_id 1 failed:Connection refused")
		}
		c.logf(mlog.Warning, "reconnect client{%#x},host:{%s} out of max limit, stop retry. connect failed", poolClientAddr, poolHost(c.msAddr))
		c.logf(mlog.Warning, "send request to %s failed. connection refused.", c.msAddr)
	}
	rpcLog(c.d.Log, c.p, "", err)
}

// poolHost is the host:port the pool's reconnect line names: the client's
// host without the brackets of an IPv6 literal (real 0.3.8.post1 …
// 0.3.10.post1, a master on 0.0.0.0 dialled at [::1]:P: "host:{::1:P} out
// of max limit", while the next line's "send request to [::1]:P" keeps
// them; docs/REAL-FINDINGS.md §34).
func poolHost(addr string) string {
	if h, port, ok := strings.Cut(strings.TrimPrefix(addr, "["), "]:"); ok && strings.HasPrefix(addr, "[") {
		return h + ":" + port
	}
	return addr
}

// poolClientAddr stands for the pool's client object pointer that
// yalantinglibs prints (a heap address, different in every process).
const poolClientAddr = 0x55d0c0de1e60

// rpcFailPerOp: MasterClient's own failure line per RPC up to v0.3.5
// (master_client.cpp v0.3.5, "LOG(ERROR) << … << result.error().msg").
var rpcFailPerOp = map[string]string{
	"ExistKey":            "Failed to check key existence: ",
	"BatchExistKey":       "Failed to check batch key existence: ",
	"GetReplicaList":      "Failed to get replica list: ",
	"BatchGetReplicaList": "Failed to get batch replica list: ",
	"PutStart":            "Failed to start put operation: ",
	"PutEnd":              "Failed to end put operation: ",
	"BatchPutEnd":         "Failed to end batch put operation: ",
	"PutRevoke":           "Failed to revoke put operation: ",
	"BatchPutRevoke":      "Failed to revoke batch put operation: ",
	"UnmountSegment":      "Failed to unmount segment: ",
}

func (c *RealClient) code(err error) mooncake.ErrorCode {
	c.rpcLog(err)
	return master.Code(err, c.p)
}

func (c *RealClient) fail(code mooncake.ErrorCode) int {
	if c.p.SetupFailurePositive {
		return 1
	}
	return int(code)
}

// Setup is MooncakeDistributedStore.setup(...).
func (c *RealClient) Setup(ctx context.Context, a engine.SetupArgs) (int, error) {
	positional := []any{a.LocalHostname, a.MetadataServer, a.GlobalSegmentSize, a.LocalBufferSize, a.Protocol, a.RDMADevices, a.MasterServerAddr}
	if a.PassEngine {
		positional = append(positional, nil)
	}
	names := make([]string, len(a.Kwargs))
	for i, k := range a.Kwargs {
		names[i] = k.Name
	}
	// size_t parameters reject negative ints in pybind11's type caster.
	if !mooncake.SetupCallMatches(c.p, len(positional), names) || a.GlobalSegmentSize < 0 || a.LocalBufferSize < 0 {
		return 0, &engine.PyError{Class: "TypeError", Message: mooncake.SetupTypeError(c.p, positional, a.Kwargs)}
	}
	if c.initialized {
		// No version guards setup() ("Client is already initialized" is
		// initAll's): setup_internal builds a new Client and the old one
		// is destroyed. Real runs (0.3.7.post2, 0.3.9, 0.3.13.post1): the
		// second setup() returns 0 on a new port, 1-2 s later.
		if err := c.replace(ctx); err != nil {
			return 0, err
		}
	}
	code, err := c.setupInternal(ctx, a)
	if err != nil {
		return 0, err
	}
	if code != mooncake.OK {
		return c.fail(code), nil
	}
	return 0, nil
}

// localHostPort is the store client's split of local_hostname: whether it
// carries a port, and the host a bound port is appended to. With
// ipv6 (Profile.ExplicitPortIPv6) it is hasExplicitPort and
// buildHostNameWithPort (common.h v0.3.12.post1:270, :292): "[v6]" or a bare
// IPv6 address has no port and gets one as "[v6]:port"; before, the text
// up to the first ':' is the host and any ':' a port.
func localHostPort(name string, ipv6 bool) (string, bool) {
	if ipv6 {
		if strings.HasPrefix(name, "[") {
			if i := strings.Index(name, "]"); i >= 0 && isIPv6(name[1:i]) {
				return name[:i+1], strings.Contains(name[i:], ":")
			}
		} else if isIPv6(name) {
			return "[" + name + "]", false
		}
		if i := strings.LastIndex(name, ":"); i >= 0 {
			return name[:i], true
		}
		return name, false
	}
	host, _, has := strings.Cut(name, ":")
	return host, has
}

// buildEnviron prints Environ's warnings once per process.
func (c *RealClient) buildEnviron() {
	if !c.environBuilt {
		c.environBuilt = true
		environWarnings(c.p, c.d.Env, c.d.Log)
	}
}

func isIPv6(s string) bool { return strings.Contains(s, ":") && net.ParseIP(s) != nil }

func (c *RealClient) setupInternal(ctx context.Context, a engine.SetupArgs) (mooncake.ErrorCode, error) {
	if a.LocalHostname == "" && c.p.EmptyHostnameCheck {
		c.logf(mlog.Error, "local_hostname is empty")
		return mooncake.INVALID_PARAMS, nil
	}
	// Environ's stderr lines: at 0.3.14 before the transfer engine's
	// config lines, at 0.3.13 after them (te.Config.AfterConfig; real,
	// REAL-FINDINGS §98).
	if c.p.EnvironBeforeConfig {
		c.buildEnviron()
	}
	var devices *string
	if a.RDMADevices != "" && a.RDMADevices != "auto-discovery" {
		devices = &a.RDMADevices
	}
	host, hasPort := localHostPort(a.LocalHostname, c.p.ExplicitPortIPv6)
	if !hasPort && c.p.AutoPortRetry {
		ok, err := c.autoPortLoop(ctx, a, host, devices)
		if err != nil || !ok {
			return mooncake.INTERNAL_ERROR, err
		}
	} else {
		if hasPort {
			c.hostname = a.LocalHostname
		} else {
			// getRandomAvailablePort, one attempt.
			port, release, ok := c.bindPort(ctx, host, 12300, 14300)
			if !ok {
				// AutoPortBinder from 0.3.8 (real_client.cpp); before,
				// getRandomAvailablePort (store_py.cpp).
				if c.p.AutoPortBinder {
					c.logf(mlog.Error, "Failed to bind available port")
				} else {
					c.logf(mlog.Error, "Failed to find available port")
				}
				return mooncake.INVALID_PARAMS, nil
			}
			if c.p.AutoPortBinder {
				c.release = release
			} else {
				// getRandomAvailablePort only probes: isPortAvailable
				// closes its socket (store_py.cpp v0.3.4.post2:121-133), so
				// the transfer engine may bind the port itself.
				release()
			}
			c.hostname = host + ":" + strconv.Itoa(port)
		}
		ok, err := c.create(ctx, a, devices)
		if err != nil {
			return 0, err
		}
		if !ok {
			c.logf(mlog.Error, "Failed to create client")
			return mooncake.INVALID_PARAMS, nil
		}
	}
	// client_ is set from here on: a later failure leaves it in place
	// (register_buffer then reaches CheckRegisterMemoryParams; real
	// 0.3.10.post1 after a -600 setup).
	c.initialized = true
	return c.afterCreate(ctx, a)
}

// bindPort is AutoPortBinder: up to 20 random ports in [lo, hi].
func (c *RealClient) bindPort(ctx context.Context, host string, lo, hi int) (int, func(), bool) {
	for range 20 {
		port := lo + c.d.Rand.IntN(hi-lo+1)
		if c.d.Ports == nil {
			return port, func() {}, true
		}
		if rel, err := c.d.Ports.Bind(ctx, host, port); err == nil {
			return port, rel, true
		}
	}
	return 0, nil, false
}

// envInt is knob k as version p parses it (mooncake.Knobs), def when it
// is unset, not read at p, or falls back.
func envInt(p mooncake.Profile, env map[string]string, k string, def int) int {
	v, ok := env[k]
	pv := mooncake.ParseKnob(p.Version, k, v, ok)
	if !pv.Read || pv.Fallback {
		return def
	}
	return int(int32(pv.Int)) // GetEnvOr<int>: static_cast<int> of the long long
}

// autoPortLoop is RealClient::setup_internal's port-less branch (v0.3.9+).
func (c *RealClient) autoPortLoop(ctx context.Context, a engine.SetupArgs, host string, devices *string) (bool, error) {
	retries := envInt(c.p, c.d.Env, "MC_STORE_CLIENT_SETUP_RETRIES", c.p.SetupRetries)
	lo, hi := 12300, 14300
	if c.p.AutoPortRangeEnv {
		// GetEnvOr, then ValidatePortRange on the pair: an invalid pair
		// (reversed, privileged, ephemeral) warns and falls back to the
		// defaults (real 0.3.11.post1 and 0.3.13.post1).
		l, h, warn := mooncake.ValidatePortRange(
			int64(envInt(c.p, c.d.Env, "MC_STORE_CLIENT_MIN_PORT", lo)),
			int64(envInt(c.p, c.d.Env, "MC_STORE_CLIENT_MAX_PORT", hi)), int64(lo), int64(hi))
		if warn != "" {
			c.logf(mlog.Warning, "%s", warn)
		}
		lo, hi = int(l), int(h)
	}
	for retry := 0; retry < retries; retry++ {
		port, release, ok := c.bindPort(ctx, host, lo, hi)
		if !ok {
			c.logf(mlog.Warning, "Failed to bind available port, retry %d/%d", retry+1, retries)
			if err := c.d.Clock.Sleep(ctx, setupRetrySleep); err != nil {
				return false, err
			}
			continue
		}
		c.hostname = host + ":" + strconv.Itoa(port)
		ok, err := c.create(ctx, a, devices)
		if err != nil {
			release()
			return false, err
		}
		if !ok && c.refused && retry+1 == c.p.AutoPortRefusedCrashAttempt {
			release()
			return false, segfault(fmt.Sprintf("Segmentation fault in store.so during auto-port attempt %d/%d with the master refusing connections", retry+1, retries))
		}
		if ok {
			c.release = release
			c.logf(mlog.Info, "Successfully created client on port %d after %d attempt(s)", port, retry+1)
			return true, nil
		}
		c.logf(mlog.Warning, "Failed to create client on port %d, retry %d/%d", port, retry+1, retries)
		release()
		if err := c.d.Clock.Sleep(ctx, setupRetrySleep); err != nil {
			return false, err
		}
	}
	c.logf(mlog.Error, "Failed to create client after %d retries", retries)
	return false, nil
}

func (c *RealClient) newUUID() master.UUID {
	return master.UUID{Hi: c.d.Rand.Uint64(), Lo: c.d.Rand.Uint64()}
}

// create is Client::Create: connect (ServiceReady + version check),
// GetStorageConfig, transfer engine init. false = std::nullopt.
func (c *RealClient) create(ctx context.Context, a engine.SetupArgs, devices *string) (bool, error) {
	if err := c.d.Clock.Sleep(ctx, CreateCost); err != nil {
		return false, err
	}
	c.id = c.newUUID()
	if !c.p.HABackend && c.p.MasterViewKey != "mooncake-store/master_view" {
		// Every Client holds a MasterViewHelper (client.h v0.3.7.post2:357,
		// client_service.h to v0.3.10) whose constructor names its key
		// (ha_helper.cpp v0.3.7.post1:8-20), HA or not: each attempt
		// prints it (real 0.3.7.post2, 0.3.9).
		cluster := "mooncake"
		if v := c.d.Env["MC_STORE_CLUSTER_ID"]; v != "" {
			cluster = strings.TrimSuffix(v, "/")
		}
		c.logf(mlog.Info, "Master view key: mooncake-store/%s/master_view", cluster)
	}
	c.msAddr = a.MasterServerAddr
	if c.p.HAClient && strings.HasPrefix(c.msAddr, haPrefix) {
		addr, ok := c.masterFromView(ctx, strings.TrimPrefix(c.msAddr, haPrefix))
		if !ok {
			return false, nil
		}
		c.msAddr, c.haEndpoints = addr, strings.TrimPrefix(a.MasterServerAddr, haPrefix)
	}
	if v, ok := c.d.Env["MC_RPC_PROTOCOL"]; ok && v == "rdma" && len(c.d.Host.RDMA) == 0 &&
		mooncake.ParseKnob(c.p.Version, "MC_RPC_PROTOCOL", v, true).Read {
		// MasterClient's pool then makes coro_rpc ib_socket clients
		// (master_client.h v0.3.9:32), and the first connect on a host
		// with no RDMA device crashes the process (real 0.3.7.post2 …
		// 0.3.14: SIGSEGV after "Client metrics enabled but reporting
		// disabled", nothing logged by Mooncake; docs/REAL-FINDINGS.md §78).
		return false, segfault("Segmentation fault in MasterClient::Connect: MC_RPC_PROTOCOL=rdma on a host with no RDMA device")
	}
	c.ms = c.d.Master.Master(c.msAddr, c.t)
	if !c.connect(ctx) {
		return false, nil
	}
	// Up to 0.3.6 only an HA client (etcd://) starts the ping thread
	// (client.cpp v0.3.4.post2:124-156): one given the master's address
	// never pings, and an HA master expires it (master.Config.EnableHA).
	c.pinging = (c.p.Heartbeat || c.haEndpoints != "") && !c.p.HeartbeatAfterMount
	c.pingSince = c.d.Clock.Now()
	c.pingOK, c.pingFails = true, 0
	if c.pinging && c.d.PingStarted != nil {
		c.d.PingStarted(c)
	}
	if cfg, err := c.ms.GetStorageConfig(ctx); err != nil {
		c.rpcLog(err)
		c.logf(mlog.Error, "Failed to get storage config from master")
		c.logf(mlog.Error, "Failed to get fsdir from master")
	} else if cfg.FSDir == "" {
		c.logf(mlog.Info, "Storage root directory is not set. persisting data is disabled.")
	} else {
		c.prepareStorageBackend(cfg)
	}
	c.te = te.New(te.Config{Profile: c.p, Host: c.d.Host, Env: c.d.Env, Log: c.d.Log, Metadata: c.d.Metadata, Etcd: c.d.Etcd, Ports: c.d.Ports, PortRand: c.d.PortRand, AfterConfig: c.buildEnviron})
	err := c.te.InitStore(ctx, c.hostname, a.MetadataServer, a.Protocol, devices)
	c.te.StartWorkers(c.d.Clock.Now())
	if err != nil {
		var ab *te.Abort
		if errors.As(err, &ab) {
			return false, abort(ab.Message)
		}
		var died *engine.ProcessDied
		if errors.As(err, &died) {
			return false, died
		}
		var cx *te.CppException
		if errors.As(err, &cx) {
			// Thrown out of setup through pybind11 (real 0.3.11.post1,
			// MC_MS_AUTO_DISC=true: ValueError "stoi", nothing logged);
			// the half-built Client is destroyed while unwinding, joining
			// its ping thread where one runs (as below).
			if c.pinging {
				if err := c.d.Clock.Sleep(ctx, c.pingJoinWait()); err != nil {
					return false, err
				}
			}
			c.te.Close(ctx)
			c.te, c.pinging = nil, false
			return false, &engine.PyError{Class: cx.Class, Message: cx.What}
		}
		c.logf(mlog.Error, "Failed to initialize transfer engine")
		// Destroying the half-built Client joins its threads: the ping
		// thread (started at connect before 0.3.11) sleeps out its current
		// 1 s interval, and the P2P handshake listener polls with a 1 s
		// timeout unless a leaked transport keeps it alive
		// (Profile.FailedTransportFreed). Real runs: ~1 s per failed
		// attempt in those cases (0.3.9 http 0.94 s, 0.3.7.post2–0.3.9 and
		// 0.3.12.post1/0.3.13.post1 P2P rdma 1.0–1.1 s), ~0.03–0.1 s
		// otherwise (0.3.13.post1 http, 0.3.10.post1/0.3.11.post1 P2P
		// rdma). ~Client joins the ping thread before its TransferEngine
		// member is destroyed (which removes rpc_meta). With etcd the
		// failure comes 5 s after connect, at a ping wake-up: real
		// 0.3.8.post1 / 0.3.9 waited 0–1 s there (10.0–11.1 s a failed
		// attempt, REAL-FINDINGS §19).
		// A TCP transport init installed for MC_FORCE_TCP (from 0.3.12) is
		// joined as long (real 0.3.12.post1/0.3.13.post1: 1.04–1.06 s).
		listener := c.te.JoinsHandshakeListener() || c.te.JoinsTCPTransport()
		if c.pinging {
			if err := c.d.Clock.Sleep(ctx, c.pingJoinWait()); err != nil {
				return false, err
			}
		}
		c.te.Close(ctx)
		if c.te.Leaked() {
			c.leaked = append(c.leaked, c.te)
		}
		if listener && !c.pinging {
			// The join meets the listener anywhere in its accept()'s 1 s
			// SO_RCVTIMEO (transfer_metadata_plugin.cpp): a race. Real
			// 0.3.14, 20 attempts: 22.4 s quiet, 19.7 s under CI load.
			if err := engine.SleepAs(ctx, c.d.Clock, engine.Racy, threadJoinCost); err != nil {
				return false, err
			}
		}
		c.te, c.pinging = nil, false
		return false, nil
	}
	c.logMemcpyChoice()
	return true, nil
}

// pingRTT is one Ping RPC to a loopback master (≈ 1 ms on the real
// wheels): the ping thread's period is PingInterval plus it.
const pingRTT = time.Millisecond

// pingPhaseJitter: after the first ping, a wake-up's time is known only
// to a few milliseconds (each Ping RPC's own time adds up), so a join that
// falls this close to one is a coin toss between ~0 and ~1 s.
const pingPhaseJitter = 50 * time.Millisecond

// pingJoinWait is how long joining the ping thread takes: until its next
// wake-up (it pings, then sleeps PingInterval; PingThreadMain). Right after
// connect that is ~1 s (real 0.3.9 HTTP metadata refused: 0.94 s). An etcd
// timeout ends 5 s after connect, right at the fifth wake-up: real
// 0.3.8.post1 / 0.3.9 waited either ~0 or ~1 s there (10.0, 10.1, 10.1,
// 10.1, 10.1, 11.0, 11.1, 11.2 s a failed attempt, REAL-FINDINGS §19), so
// the model waits the expected half period.
func (c *RealClient) pingJoinWait() time.Duration {
	period := PingInterval + pingRTT
	el := c.d.Clock.Now() - c.pingSince
	rem := period - el%period
	if el > period/2 && (rem < pingPhaseJitter || period-rem < pingPhaseJitter) {
		return period / 2
	}
	return rem
}

// connect is MasterClient::Connect.
func (c *RealClient) connect(ctx context.Context) bool {
	var v string
	var err error
	if !c.p.MasterAddrIPv6 && ipv6HostPort(c.msAddr) {
		err = c.unresolvable(ctx)
		if ctx.Err() != nil {
			return false
		}
	} else {
		v, err = c.ms.ServiceReady(ctx)
	}
	re, isRPC := master.AsRPCError(err)
	c.refused = isRPC && re.Kind == master.Refused
	if err != nil && c.refused && c.p.MasterConnectDirect {
		// v0.3.4.post2 master_client.cpp:29 (real 0.3.4).
		c.logf(mlog.Error, "Failed to connect to master: not connected")
		return false
	}
	if err != nil {
		c.rpcLog(err)
		return false
	}
	if c.p.MasterVersionCheck && v != master.RPCVersion {
		c.logf(mlog.Error, "Version mismatch: server=%s client=%s", v, master.RPCVersion)
		return false
	}
	return true
}

// ipv6HostPort: addr's host is an IPv6 address, bracketed ("[::1]:p")
// or bare ("::1:p", more than one ':').
func ipv6HostPort(addr string) bool {
	if strings.Contains(addr, "://") {
		return false // etcd://… (HA), not a host:port
	}
	return strings.HasPrefix(addr, "[") || strings.Count(addr, ":") > 1
}

// unresolvable is coro_rpc's client pool (yalantinglibs 0.5.5, up to
// 0.3.7) given an IPv6 master address: every connect's resolve fails
// before any packet, and the pool gives up as on a refusing server
// (Profile.MasterAddrIPv6). Real 0.3.7.post2, "[::1]:50051": four
// "async_resolve failed:Service not found" about 1 s apart, "out of max
// limit", "send request to [::1]:50051 failed. connection refused.",
// "Client not available", setup -600 after 4.3 s.
func (c *RealClient) unresolvable(ctx context.Context) error {
	const connects = 4
	for i := 0; i < connects; i++ {
		c.logf(mlog.Warning, "client_id 1 async_resolve failed:Service not found")
		if err := c.d.Clock.Sleep(ctx, RefusedPoolCost/connects); err != nil {
			return err
		}
	}
	// client_pool.hpp:445 (yalantinglibs 0.5.5): the address as given.
	c.logf(mlog.Warning, "send request to %s failed. connection refused.", c.msAddr)
	return &master.RPCError{Kind: master.Refused, Op: "ServiceReady", After: RefusedPoolCost}
}

func (c *RealClient) checkRegisterParams(ptr uint64, length int64) mooncake.ErrorCode {
	if !c.p.RegisterParamChecks {
		return mooncake.OK // ≤ 0.3.5: straight to the transfer engine
	}
	if ptr == 0 {
		c.logf(mlog.Error, "addr is nullptr")
		return mooncake.INVALID_PARAMS
	}
	if length == 0 {
		c.logf(mlog.Error, "length is 0")
		return mooncake.INVALID_PARAMS
	}
	if c.p.StoreMRSizeCheck {
		if m := c.te.MaxMRSize(); length > m {
			c.logf(mlog.Error, "length %d is larger than max_mr_size: %d", length, m)
			return mooncake.INVALID_PARAMS
		}
	}
	return mooncake.OK
}

func (c *RealClient) useHugepage() bool { return useHugepage(c.p, c.d.Env) }

func (c *RealClient) allocSegmentMemory(size int64) (engine.Buffer, error) {
	if c.useHugepage() {
		return c.hugepageAlloc(size)
	}
	return c.d.Mem.Alloc("segment", size)
}

// minSegmentAlloc is the smallest global-segment piece Mooncake allocates
// without hugepages: one cachelib slab (16 MiB).
const minSegmentAlloc = 16 << 20

// afterCreate: local buffer registration and the MountSegment loop.
func (c *RealClient) afterCreate(ctx context.Context, a engine.SetupArgs) (mooncake.ErrorCode, error) {
	if err := c.d.Clock.Sleep(ctx, SetupCost); err != nil {
		return mooncake.INTERNAL_ERROR, err
	}
	if a.LocalBufferSize > 0 {
		// ClientBufferAllocator::create before the log (real_client.cpp
		// v0.3.9:250-254).
		buf, err := c.allocSegmentMemory(a.LocalBufferSize)
		if err != nil && c.useHugepage() {
			return c.localBufferFailed()
		}
		if err != nil {
			c.logf(mlog.Error, "Failed to allocate local buffer memory")
			return mooncake.INVALID_PARAMS, nil
		}
		c.logf(mlog.Info, "Registering local memory: %d bytes", a.LocalBufferSize)
		c.localBuf = &buf
		if code := c.registerLocal(ctx, buf.Ptr, buf.Size); code != mooncake.OK {
			c.logf(mlog.Error, "Failed to register local memory: %s", code.Name())
			return code, nil
		}
	} else {
		c.logf(mlog.Info, "Local buffer size is 0, skip registering local memory")
	}
	total := a.GlobalSegmentSize
	remaining := total
	var mounted int64
	maxMR := c.te.MaxMRSize()
	if !c.p.SegmentSplit {
		maxMR = total // one segment: the TE shrinks (≤ 0.3.4.post2) or chunks (0.3.13+) it
	}
	for remaining > 0 {
		size := min(remaining, maxMR)
		remaining -= size
		mounted += size
		if c.p.SegmentSplit || c.p.ChunkLargeMR {
			// The log came with the split loop (v0.3.5); store_py.cpp
			// before it mounts silently.
			c.logf(mlog.Info, "Mounting segment: %d bytes, %d of %d", size, mounted, total)
		}
		if size < minSegmentAlloc && !c.useHugepage() {
			// allocate_buffer_allocator_memory: a piece below the slab
			// size (cachelib Slab::kSize, kNumSlabBits 24 at every tag;
			// utils.cpp:10 at v0.3.0, :119 at v0.3.12.post1) is refused
			// (real 0.3.12.post1: tp_size 2 of a 16 MiB segment).
			c.logf(mlog.Error, "Total size must be at least %d", minSegmentAlloc)
			c.logf(mlog.Error, "Failed to allocate segment memory")
			return mooncake.INVALID_PARAMS, nil
		}
		buf, err := c.allocSegmentMemory(size)
		if err != nil {
			c.logf(mlog.Error, "Failed to allocate segment memory")
			return mooncake.INVALID_PARAMS, nil
		}
		if code := c.mountSegment(ctx, buf, a.Protocol); code != mooncake.OK {
			c.logf(mlog.Error, "Failed to mount segment: %s", code.Name())
			return code, nil
		}
	}
	if total == 0 && (c.p.SegmentSplit || c.p.ChunkLargeMR) {
		c.logf(mlog.Info, "Global segment size is 0, skip mounting segment")
	}
	return c.initFileStorage(ctx, a)
}

// initFileStorage handles enable_ssd_offload=True (0.3.10.post2+). Texts
// and outcomes from the real 0.3.13.post1 wheel: a missing path raises
// ValueError; a master without --enable_offload gives UNABLE_OFFLOAD.
func (c *RealClient) initFileStorage(ctx context.Context, a engine.SetupArgs) (mooncake.ErrorCode, error) {
	on, path := false, ""
	for _, k := range a.Kwargs {
		switch k.Name {
		case "enable_ssd_offload":
			on, _ = k.Value.(bool)
		case "ssd_offload_path":
			path, _ = k.Value.(string)
		}
	}
	if !on {
		return mooncake.OK, nil
	}
	// FileStorageConfig::FromEnvironment reads the backend descriptor
	// first (file_storage.cpp v0.3.11.post1:24-37): an unknown one logs
	// at ERROR and keeps the bucket backend (newFileStorage).
	if v, ok := c.d.Env["MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR"]; ok {
		if pv := mooncake.ParseKnob(c.p.Version, "MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR", v, true); pv.Log != "" {
			c.logf(pv.Level, "%s", pv.Log)
		}
	}
	if c.d.FileExists == nil || !c.d.FileExists(path) {
		c.logf(mlog.Error, "FileStorageConfig: storage_filepath does not exist: %s", path)
		return 0, &engine.PyError{Class: "ValueError", Message: "Invalid FileStorage configuration"}
	}
	// The distributed backend's S3 adapter (0.3.14): the client buffer,
	// then the adapter's Init, before the disk segment is mounted
	// (s3offload.go).
	s3, code, err := c.objectStorageBeforeMount(ctx)
	if err != nil || code != mooncake.OK {
		return code, err
	}
	// The FileStorage is built (its configuration checked) before it
	// mounts its disk segment.
	fs := newFileStorage(c.p.Version, c.d.Env, c.d.Clock.Now(), path, c.d.Disk)
	if line, msg := fs.invalid(); line != "" {
		c.logf(mlog.Error, "%s", line)
		return 0, &engine.PyError{Class: "ValueError", Message: msg}
	}
	err = error(mooncake.UNABLE_OFFLOAD)
	if os, ok := c.ms.(master.OffloadService); ok {
		err = os.MountLocalDiskSegment(ctx, c.id)
	}
	if err != nil {
		code := c.code(err)
		c.logf(mlog.Error, "MountLocalDiskSegment failed, error code is %s", code.Name())
		c.logf(mlog.Error, "Failed to mount file storage: %s", code.Name())
		c.logf(mlog.Error, "file storage init failed with error: %s", code.Name())
		return code, nil
	}
	// FileStorage's client buffer (AlignedClientBufferAllocator, 1.25 GiB)
	// is allocated before its heartbeat starts (with the S3 adapter,
	// before the mount).
	if s3 == nil {
		if err := engine.SleepAs(ctx, c.d.Clock, engine.HostWork, FileStorageCost); err != nil {
			return mooncake.INTERNAL_ERROR, err
		}
	}
	fs.next = c.d.Clock.Now()
	c.fs = fs
	if c.offloadAtRPC != "" {
		// mooncake_client up to v0.3.10.post2 starts no offload RPC
		// server: its reads are served at local_rpc_addr, the dummies'
		// RPC port (real_client.cpp v0.3.9:349-352).
		c.fs.endpoint = c.offloadAtRPC
	} else {
		c.fs.endpoint, c.fs.release = c.offloadServer(ctx)
	}
	if code, err := c.objectStorageAfterBuffer(ctx, s3); err != nil || code != mooncake.OK {
		c.stopOffloadServer()
		c.fs = nil
		return code, err
	}
	// The mount succeeded: the master answers offload RPCs.
	if code := c.scanBuckets(ctx, c.ms.(master.OffloadService)); code != mooncake.OK {
		c.logf(mlog.Error, "file storage init failed with error: %s", code.Name())
		return code, nil
	}
	return mooncake.OK, nil
}

// stopOffloadServer frees the offload RPC server's port.
func (c *RealClient) stopOffloadServer() {
	if c.fs != nil && c.fs.release != nil {
		c.fs.release()
		c.fs.release = nil
	}
}

// offloadPortBase is where the model's offload RPC server looks for a
// free port; real binds port 0, any port the OS gives.
const offloadPortBase = 40000

// offloadServer starts the offload RPC server (real_client.cpp
// v0.3.11.post1:857-885): its endpoint is local_hostname's host and the
// port. Not modelled: the server's own failure to start.
func (c *RealClient) offloadServer(ctx context.Context) (string, func()) {
	host, _ := localHostPort(c.hostname, false)
	release := func() {}
	port := offloadPortBase
	for ; c.d.Ports != nil && port < offloadPortBase+1000; port++ {
		if rel, err := c.d.Ports.Bind(ctx, "0.0.0.0", port); err == nil {
			release = rel
			break
		}
	}
	c.logf(mlog.Info, "Offload RPC server started on port %d", port)
	return host + ":" + strconv.Itoa(port), release
}

// registerLocal is Client::RegisterLocalMemory.
func (c *RealClient) registerLocal(ctx context.Context, ptr uint64, size int64) mooncake.ErrorCode {
	if code := c.checkRegisterParams(ptr, size); code != mooncake.OK {
		return code
	}
	if rc := c.te.RegisterLocalMemory(ctx, ptr, size, true); rc != 0 {
		return mooncake.INVALID_PARAMS
	}
	return mooncake.OK
}

// mountSegment is Client::MountSegment.
func (c *RealClient) mountSegment(ctx context.Context, buf engine.Buffer, protocol string) mooncake.ErrorCode {
	if code := c.checkRegisterParams(buf.Ptr, buf.Size); code != mooncake.OK {
		return code
	}
	// It holds mounted_segments_mutex_ from here: a remount the ping thread
	// started first (before 0.3.11 it pings from connect, so its first
	// ping finds the client unknown) runs with no segment, and the mount
	// comes after it (real 0.3.9: no segment_already_exists).
	if err := c.lockMountedSegments(ctx); err != nil {
		return mooncake.INTERNAL_ERROR
	}
	if rc := c.te.RegisterLocalMemory(ctx, buf.Ptr, buf.Size, true); rc != 0 {
		if c.p.MountFailNamesSegment {
			c.logf(mlog.Error, "register_local_memory_failed segment_name=%s", c.hostname)
		} else {
			c.logf(mlog.Error, "register_local_memory_failed base=%#x size=%d, error=%d", buf.Ptr, buf.Size, rc)
		}
		return mooncake.INVALID_PARAMS
	}
	seg := master.Segment{ID: c.newUUID(), Name: c.hostname, Base: buf.Ptr, Size: buf.Size, Protocol: protocol, TEEndpoint: c.te.ServerName(), TEProtocol: c.te.SegmentProtocol()}
	if err := c.ms.MountSegment(ctx, seg, c.id); err != nil {
		code := c.code(err)
		c.logf(mlog.Error, "mount_segment_to_master_failed base=%#x size=%d, error=%s", buf.Ptr, buf.Size, code.Name())
		c.te.UnregisterLocalMemory(ctx, buf.Ptr)
		return code
	}
	c.segments = append(c.segments, seg)
	if c.p.Heartbeat && c.p.HeartbeatAfterMount {
		c.pinging = true
	}
	return mooncake.OK
}

// RemountStep is one blocking call of remount_segment, made through ms.
type RemountStep func(ctx context.Context, ms master.Service)

// remountSteps is remount_segment (client_service.cpp): under
// mounted_segments_mutex_, ReMountSegment of every mounted segment, then
// (v0.3.12+) the re-publication of the TE metadata.
func (c *RealClient) remountSteps() []RemountStep {
	steps := []RemountStep{func(ctx context.Context, ms master.Service) {
		if err := ms.ReMountSegment(ctx, c.segments, c.id); err != nil {
			c.logf(mlog.Error, "Failed to remount segments: %s", master.Code(err, c.p).Name())
		}
	}}
	return append(steps, c.republishSteps()...)
}

// RemountDone is the end of the remount thread: mounted_segments_mutex_ is
// released.
func (c *RealClient) RemountDone() { c.mountLocked = false }

// JoinRemount is the top of a ping loop iteration: a remount thread that
// has ended is joined (its future reset), so this iteration's ping may
// start another or retry a failed re-publication.
func (c *RealClient) JoinRemount() {
	if !c.mountLocked {
		c.remounting = false
	}
}

// lockMountedSegments takes mounted_segments_mutex_: it waits while a
// remount thread holds it.
func (c *RealClient) lockMountedSegments(ctx context.Context) error {
	if !c.mountLocked || c.d.WaitMountLock == nil {
		return nil
	}
	return c.d.WaitMountLock(ctx, c)
}

// MountLocked reports whether a remount thread holds mounted_segments_mutex_.
func (c *RealClient) MountLocked() bool { return c.mountLocked }

// Pinging reports whether the heartbeat thread runs.
func (c *RealClient) Pinging() bool { return c.pinging && !c.closed }

// JoinsTaskPollFirst: ~Client joins the task-poll thread before it stops
// the ping thread (mooncake.Profile.DestructorJoinsTaskPoll).
func (c *RealClient) JoinsTaskPollFirst() bool { return c.p.DestructorJoinsTaskPoll }

// Heartbeat is one iteration of Client::PingThreadMain: Ping; on
// NEED_REMOUNT remount every segment and republish TE metadata; after 3
// failures reconnect. It returns how long the thread sleeps before the next
// iteration. ms is the stub to use (sim passes one whose waits do not block
// the foreground); nil = the client's own.
func (c *RealClient) Heartbeat(ctx context.Context, ms master.Service) time.Duration {
	if !c.Pinging() {
		return 0
	}
	if ms == nil {
		ms = c.ms
	}
	c.JoinRemount()
	resp, err := ms.Ping(ctx, c.id)
	return c.PingDone(ctx, ms, resp, err)
}

// PingDone is the rest of a Client::PingThreadMain iteration once the
// ping's outcome is known (sim decides a refused ping at the connection
// pool's last reconnect, after the pool's cost): count it, remount, or
// reconnect after MaxPingFailCount failures. It returns how long the
// thread sleeps before the next ping.
func (c *RealClient) PingDone(ctx context.Context, ms master.Service, resp master.PingResponse, err error) time.Duration {
	if ms == nil {
		ms = c.ms
	}
	c.flushLaneGiveUps()
	if c.onBeat != nil {
		c.onBeat(ctx)
	}
	if err == nil {
		c.pingFails, c.pingOK = 0, true
		switch {
		case c.remounting:
			// At most one remount thread; no retry while it runs.
		case resp.Status == master.NeedRemount:
			steps := c.remountSteps()
			if c.d.Remount == nil {
				for _, s := range steps {
					s(ctx, ms)
				}
				break
			}
			c.remounting, c.mountLocked = true, true
			c.d.Remount(c, steps)
		default:
			c.retryRepublish(ctx)
		}
		c.offloadTick(ctx, ms)
		return PingInterval
	}
	if c.ReconnectPendingNonHA() {
		c.PingCounted(err)
		v, err := ms.ServiceReady(ctx)
		return c.ReconnectDone(v, err)
	}
	c.rpcLog(err)
	c.pingOK = false
	c.pingFails++
	if c.pingFails < MaxPingFailCount {
		c.logf(mlog.Error, "Failed to ping master")
		return PingInterval
	}
	if c.p.Heartbeat {
		c.logf(mlog.Error, "Failed to ping master for %d times; fetching latest master view and reconnecting", c.pingFails)
	} else {
		// client.cpp v0.3.4:766 … v0.3.6:1384; reworded in v0.3.6.post1,
		// the release that pings without HA (Profile.Heartbeat).
		c.logf(mlog.Error, "Failed to ping master for %d times, try to get latest master view and reconnect", c.pingFails)
	}
	c.haReconnect = true
	return 0
}

// ReconnectPendingNonHA reports whether the next PingDone of a failed ping
// reconnects (non-HA, the failure threshold reached): sim then runs the
// reconnect's ServiceReady itself (PingCounted, ReconnectDone) so a
// refused one can be re-checked at the client pool's later connects.
func (c *RealClient) ReconnectPendingNonHA() bool {
	return c.haEndpoints == "" && c.pingFails+1 >= MaxPingFailCount
}

// PingCounted is PingDone for a failed ping that reconnects
// (ReconnectPendingNonHA): it counts the failure and logs; the caller
// makes the ServiceReady call and finishes with ReconnectDone.
func (c *RealClient) PingCounted(err error) {
	c.rpcLog(err)
	c.pingOK = false
	c.pingFails++
	c.logf(mlog.Error, "Failed to ping master for %d times (non-HA); reconnecting to %s", c.pingFails, c.msAddr)
}

// ReconnectDone finishes the ping thread's non-HA reconnect once its
// ServiceReady's outcome is known; it returns the thread's next sleep.
func (c *RealClient) ReconnectDone(v string, err error) time.Duration {
	if err != nil {
		c.rpcLog(err)
		c.logf(mlog.Error, "Reconnect failed to %s: %s", c.msAddr, master.Code(err, c.p).Name())
		return PingInterval
	}
	if c.p.MasterVersionCheck && v != master.RPCVersion {
		c.logf(mlog.Error, "Version mismatch: server=%s client=%s", v, master.RPCVersion)
		c.logf(mlog.Error, "Reconnect failed to %s: %s", c.msAddr, mooncake.INVALID_VERSION.Name())
		return PingInterval
	}
	c.logf(mlog.Info, "Reconnected to master %s", c.msAddr)
	// Connect() stores last_ping_success_ = true (client_service.cpp).
	c.pingFails, c.pingOK = 0, true
	return 0
}

// RegisterBuffer is register_buffer(ptr, size) (RealClient::register_buffer).
func (c *RealClient) RegisterBuffer(ctx context.Context, ptr uint64, size int64) (int, error) {
	if size < 0 {
		return 0, &engine.PyError{Class: "TypeError", Message: registerTypeError(c.p.Class(), ptr, size)}
	}
	if !c.initialized || c.closed {
		c.logf(mlog.Error, "Client is not initialized")
		return c.fail(mooncake.INVALID_PARAMS), nil
	}
	if code := c.registerLocal(ctx, ptr, size); code != mooncake.OK {
		return int(code), nil
	}
	c.buffers = append(c.buffers, ptr)
	return 0, nil
}

func registerTypeError(class string, ptr uint64, size int64) string {
	return fmt.Sprintf("register_buffer(): incompatible function arguments. The following argument types are supported:\n"+
		"    1. (self: %s, buffer_ptr: int, size: int) -> int\n\nInvoked with: <%s object at %s>, %d, %d",
		class, class, mooncake.SimObjectAddr, ptr, size)
}

// UnregisterBuffer is unregister_buffer(ptr).
func (c *RealClient) UnregisterBuffer(ctx context.Context, ptr uint64) (int, error) {
	if !c.initialized || c.closed {
		c.logf(mlog.Error, "Client is not initialized")
		return int(mooncake.INVALID_PARAMS), nil
	}
	if rc := c.te.UnregisterLocalMemory(ctx, ptr); rc != 0 {
		c.logf(mlog.Error, "Unregister buffer failed with error: %s", mooncake.INVALID_PARAMS.Name())
		return int(mooncake.INVALID_PARAMS), nil
	}
	for i, b := range c.buffers {
		if b == ptr {
			c.buffers = append(c.buffers[:i], c.buffers[i+1:]...)
			break
		}
	}
	return 0, nil
}

// localBufferSize is the local buffer's capacity (setup's
// local_buffer_size; 0 when none was registered). One call at a time uses
// it whole: concurrent puts sharing it, and the allocator's own overhead,
// are not modelled.
func (c *RealClient) localBufferSize() int64 {
	if c.localBuf == nil {
		return 0
	}
	return c.localBuf.Size
}

// putBytes is Client::Put: PutStart → transfer each replica → PutEnd
// (PutRevoke on transfer failure). OBJECT_ALREADY_EXISTS counts as success.
func (c *RealClient) putBytes(ctx context.Context, key string, data hostmem.Content) mooncake.ErrorCode {
	return c.putBytesIn(ctx, key, data, false)
}

// putBytesIn is putBytes; in a batch (BatchPut) a failed PutStart RPC is
// logged once per key by batchPutLog, as Client::CollectResults does.
func (c *RealClient) putBytesIn(ctx context.Context, key string, data hostmem.Content, batch bool) mooncake.ErrorCode {
	c.flushLaneGiveUps()
	reps, err := c.ms.PutStart(ctx, key, data.Size, master.ReplicateConfig{ReplicaNum: 1})
	if err != nil {
		code := c.code(err)
		if batch && c.p.BatchPutKeyErrors {
			// PutOperation::SetError (client.cpp v0.3.5, v0.3.6.post1).
			c.logf(mlog.Warning, "Put operation failed for key %s, context: %s: Master failed to start put operation; ", key, code.Name())
		}
		switch {
		case code == mooncake.OBJECT_ALREADY_EXISTS:
			return mooncake.OK
		case !c.p.PutNoSpaceHelper:
			// client.cpp Client::Put up to v0.3.6.post1, any code (real
			// 0.3.4, 0.3.6.post1); the batch path's texts at those
			// releases are not modelled (SGLang cannot set them up).
			if !batch {
				c.logf(mlog.Error, "Failed to start put operation: %s", code.Name())
			}
		case code == mooncake.NO_AVAILABLE_HANDLE:
			// A batch counts them: Client::CollectResults warns once
			// (BatchPutFrom).
			if !batch {
				c.logf(mlog.Warning, "Failed to start put operation for key=%s%s", key, mooncake.PutNoSpaceHelper)
			}
		case batch && isRPCCode(code):
		default:
			c.logf(mlog.Error, "Failed to start put operation for key=%s: %s", key, code.Name())
		}
		return code
	}
	for _, r := range reps {
		if c.memcpyCrossProcess(r) {
			// selectStrategy picks LOCAL_MEMCPY before any transport.
			c.memcpyCrossProcessDied(r)
			return mooncake.TRANSFER_FAIL
		}
		if !c.selectTransport(r) {
			if rerr := c.ms.PutRevoke(ctx, key); rerr != nil {
				c.rpcLog(rerr)
				c.logf(mlog.Error, "Failed to revoke put operation")
			}
			return mooncake.TRANSFER_FAIL
		}
		if !c.transferMetadata(ctx, r) {
			if rerr := c.ms.PutRevoke(ctx, key); rerr != nil {
				c.rpcLog(rerr)
				c.logf(mlog.Error, "Failed to revoke put operation")
			}
			return mooncake.TRANSFER_FAIL
		}
		if !c.rdmaTransfer(ctx, r, true, c.transferSource(ctx), data.Size, key, batch) {
			if c.died != nil {
				return mooncake.TRANSFER_FAIL
			}
			if rerr := c.ms.PutRevoke(ctx, key); rerr != nil {
				c.rpcLog(rerr)
				c.logf(mlog.Error, "Failed to revoke put operation")
			}
			return mooncake.TRANSFER_FAIL
		}
		if err := c.d.Data.Write(ctx, r.TEEndpoint, r.Addr, data); err != nil {
			var ba *te.TransferBadAddress
			if errors.As(err, &ba) && c.p.TCPSessionEFAULT {
				// The serving process's socket read into an address it does
				// not map; the writer waits for no answer: the put is 0 and
				// the bytes are lost (real 0.3.9).
				sessionLog(ba.Server, c.p.Version, te.ServerReadBody, te.ErrBadAddress, ba.Addr)
				continue
			}
			var hr *te.HandshakeRefused
			var hu *te.HandshakeUnresolved
			var tr *te.TransferRefused
			var tu *te.TransferUnanswered
			if rej := (*te.TransferAddrRejected)(nil); errors.As(err, &rej) {
				rej.Log(c.d.Log, "WRITE") // then the default's per-key line
			}
			switch {
			case errors.As(err, &tu):
				if werr := c.connectUnanswered(ctx, tu, true); werr != nil {
					return mooncake.INTERNAL_ERROR
				}
			case errors.As(err, &hr):
				// SocketHandShakePlugin, TransferEngine::openSegment, then the
				// put's submit (real 0.3.13.post1 in containers).
				c.logf(mlog.Error, "SocketHandShakePlugin: connect()%s: Connection refused [111]", hr.Connect)
				c.logf(mlog.Error, "Failed to open segment for endpoint='%s'", hr.Endpoint)
				c.logf(mlog.Error, "Failed to submit transfer operation")
			case errors.As(err, &hu):
				// SocketHandShakePlugin::send's getaddrinfo failed (ERR_DNS);
				// PLOG appends errno, 0 after a resolver failure (real
				// 0.3.13.post1 in containers; the text at v0.3.7.post2 …
				// v0.3.12.post1 transfer_metadata_plugin.cpp).
				c.logf(mlog.Error, "SocketHandShakePlugin: failed to get IP address of peer server %s:%s, check DNS and /etc/hosts, or use IPv4 address instead: Success [0]", hu.Host, hu.Port)
				c.logf(mlog.Error, "Failed to open segment for endpoint='%s'", hu.Endpoint)
				c.logf(mlog.Error, "Failed to submit transfer operation")
			case errors.As(err, &tr):
				c.transferRefusedLog(r.TEEndpoint, tr.Text())
				if batch && c.p.TCPOneShotPorts {
					c.batchTransferFailed(key)
					break
				}
				c.logf(mlog.Error, "Transfer failed for key: %s with error: %s", key, mooncake.TRANSFER_FAIL.Name())
			case errors.As(err, new(*te.TransferStalled)):
				// A write the socket buffers did not take, or one waiting
				// for 0.3.12's status frame (real 0.3.12.post1: the put
				// fails when the deadline drops the connection).
				if werr := c.transferStalled(ctx, true); werr != nil {
					return mooncake.INTERNAL_ERROR
				}
				c.logf(mlog.Error, "Transfer failed for key: %s with error: %s", key, mooncake.TRANSFER_FAIL.Name())
			default:
				c.logf(mlog.Error, "Transfer failed for key: %s with error: %s", key, mooncake.TRANSFER_FAIL.Name())
			}
			if rerr := c.ms.PutRevoke(ctx, key); rerr != nil {
				c.rpcLog(rerr)
				c.logf(mlog.Error, "Failed to revoke put operation")
			}
			return mooncake.TRANSFER_FAIL
		}
	}
	if err := c.ms.PutEnd(ctx, key); err != nil {
		code := c.code(err)
		c.logf(mlog.Error, "Failed to end put operation: %s", code.Name())
		return code
	}
	c.putToLocalFile(ctx, key, data)
	return mooncake.OK
}

// selectTransport is TransferSubmitter::submitTransfer's
// MultiTransport::selectTransport for a replica: a segment whose protocol
// this engine has no transport for fails the submit (transfer_task.cpp,
// multi_transport.cpp at v0.3.8.post1 and v0.3.12.post1; Mooncake #553).
func (c *RealClient) selectTransport(r master.Replica) bool {
	if c.te.SelectTransport(r.TEProtocol) {
		return true
	}
	c.logf(mlog.Error, "Failed to submit all transfers, error code is NotSupportedTransport")
	return false
}

// getBytes is Client::Get: GetReplicaList → read the first complete replica.
func (c *RealClient) getBytes(ctx context.Context, key string) (hostmem.Content, mooncake.ErrorCode) {
	c.flushLaneGiveUps()
	return c.readObject(ctx, key, false)
}

// readObject is getBytes; localEndpoints: the call takes
// mounted_segments_mutex_ between its Query and the transfer
// (get_buffer_internal's GetLocalEndpoints, Profile.GetLocksMountedSegments),
// so it waits for a remount that holds it.
func (c *RealClient) readObject(ctx context.Context, key string, localEndpoints bool) (hostmem.Content, mooncake.ErrorCode) {
	start := c.d.Clock.Now()
	reps, err := c.queryReplicas(ctx, key)
	if err != nil {
		code := c.code(err)
		c.queryFailedLog(ctx, key, code)
		return hostmem.Content{}, code
	}
	if data, code, done := c.readFsReplica(ctx, key, &reps); done {
		return data, code
	}
	if localEndpoints && c.p.GetLocksMountedSegments {
		if err := c.lockMountedSegments(ctx); err != nil {
			return hostmem.Content{}, mooncake.INTERNAL_ERROR
		}
	}
	for _, r := range reps {
		if !r.Complete {
			continue
		}
		if localEndpoints && r.Size > c.localBufferSize() {
			// get (get_buffer_internal) reads into the local buffer: the
			// allocation of the object's size fails after the query.
			switch {
			case c.p.GetAllocBuffer:
				c.logf(mlog.Error, "Failed to allocate buffer for get_buffer, key: %s", key)
				return hostmem.Content{}, mooncake.BUFFER_OVERFLOW
			case c.p.GetAllocOperation:
				c.logf(mlog.Error, "Failed to allocate buffer for get operation, key: %s, size: %d", key, r.Size)
				return hostmem.Content{}, mooncake.BUFFER_OVERFLOW
			}
		}
		if r.LocalDisk() {
			// Memory replicas come first: a LOCAL_DISK one is read only
			// when none is left (SelectBestReplica).
			return c.offloadRead(ctx, key, r)
		}
		if c.memcpyCrossProcess(r) {
			c.memcpyCrossProcessDied(r)
			return hostmem.Content{}, mooncake.TRANSFER_FAIL
		}
		if !c.selectTransport(r) {
			c.logf(mlog.Error, "transfer_read_failed key=%s", key)
			return hostmem.Content{}, mooncake.TRANSFER_FAIL
		}
		if stalled, _ := c.handshakeUnanswered(ctx, r, key); stalled {
			// The submit failed (its lines logged): nothing was read.
			return hostmem.Content{}, mooncake.TRANSFER_FAIL
		}
		if !c.transferMetadata(ctx, r) {
			c.logf(mlog.Error, "transfer_read_failed key=%s", key)
			return hostmem.Content{}, mooncake.TRANSFER_FAIL
		}
		if !c.rdmaTransfer(ctx, r, false, c.transferSource(ctx), r.Size, key, false) {
			if c.died != nil || master.BatchOf(ctx) != nil {
				// A batch get's submit failure was logged per key (rdmaTransfer).
				return hostmem.Content{}, mooncake.TRANSFER_FAIL
			}
			c.logf(mlog.Error, "transfer_read_failed key=%s", key)
			return hostmem.Content{}, mooncake.TRANSFER_FAIL
		}
		data, err := c.d.Data.Read(ctx, r.TEEndpoint, r.Addr, r.Size)
		if err != nil {
			if c.resetUnderBatch(ctx, r.TEEndpoint, err) {
				return c.readFailed(ctx, key, te.ErrReset)
			}
			if tc := (*te.TransferClosed)(nil); errors.As(err, &tc) {
				return c.readFailed(ctx, key, tc.Err)
			}
			if tu := (*te.TransferUnanswered)(nil); errors.As(err, &tu) {
				if werr := c.connectUnanswered(ctx, tu, false); werr != nil {
					return hostmem.Content{}, mooncake.INTERNAL_ERROR
				}
				if master.BatchOf(ctx) != nil {
					c.logf(mlog.Error, "Transfer failed for key: %s with error: %d", key, mooncake.TRANSFER_FAIL)
					return hostmem.Content{}, mooncake.TRANSFER_FAIL
				}
				c.logf(mlog.Error, "transfer_read_failed key=%s", key)
				return hostmem.Content{}, mooncake.TRANSFER_FAIL
			}
			var tr *te.TransferRefused
			refused := errors.As(err, &tr)
			if refused {
				c.transferRefusedLog(r.TEEndpoint, tr.Text())
			}
			var ba *te.TransferBadAddress
			if errors.As(err, &ba) && c.p.TCPSessionEFAULT {
				// The server's socket write from an address it does not map
				// fails and it closes the connection: the reader sees End of
				// file (real 0.3.9; the reader's buffer address is the model's).
				sessionLog(ba.Server, c.p.Version, te.ServerWriteBody, te.ErrBadAddress, ba.Addr)
				sessionLog(c.d.Log, c.p.Version, te.ClientReadBody, te.ErrEOF, readerBuffer)
				c.batches++
				c.logf(mlog.Error, "Transfer failed for batch %d task 0 with status %d", transferBatchBase+c.batches*16, transferStatusFailed)
			}
			if rej := (*te.TransferAddrRejected)(nil); errors.As(err, &rej) {
				rej.Log(c.d.Log, "READ")
			}
			if st := (*te.TransferStalled)(nil); errors.As(err, &st) {
				gone, werr := c.waitStalledRead(ctx, st)
				if werr != nil {
					return hostmem.Content{}, mooncake.INTERNAL_ERROR
				}
				if gone {
					return c.readFailed(ctx, key, te.ErrReset)
				}
				if master.BatchOf(ctx) != nil {
					// Client::BatchGet's per-key result (client_service.cpp;
					// real 0.3.9 … 0.3.14 batch_get_into).
					c.logf(mlog.Error, "Transfer failed for key: %s with error: %d", key, mooncake.TRANSFER_FAIL)
					return hostmem.Content{}, mooncake.TRANSFER_FAIL
				}
			}
			if master.BatchOf(ctx) != nil {
				// batch_get_into: the failed task, then Client::BatchGet's
				// per-key result; transfer_read_failed is Client::Get's (real
				// 0.3.8.post1 … 0.3.13.post1, io/peer-departed-stale-segment).
				if refused {
					c.transferTaskFailed()
				}
				c.logf(mlog.Error, "Transfer failed for key: %s with error: %d", key, mooncake.TRANSFER_FAIL)
				return hostmem.Content{}, mooncake.TRANSFER_FAIL
			}
			c.logf(mlog.Error, "transfer_read_failed key=%s", key)
			return hostmem.Content{}, mooncake.TRANSFER_FAIL
		}
		// Query's lease_timeout is the client's time before the request
		// plus the granted TTL (QueryResult::IsLeaseExpired). A batch
		// checks every key at its end (expireBatchLeases).
		if bl := batchLeasesOf(ctx); bl != nil {
			bl.granted(key, r.LeaseTTL)
		} else if c.p.LeaseExpiryCheck && r.LeaseTTL > 0 && c.d.Clock.Now() >= start+r.LeaseTTL {
			c.logf(mlog.Warning, "lease_expired_before_data_transfer_completed key=%s", key)
			return hostmem.Content{}, mooncake.LEASE_EXPIRED
		}
		return data, mooncake.OK
	}
	c.logf(mlog.Error, "no_complete_replicas_found key=%s", key)
	return hostmem.Content{}, mooncake.INVALID_REPLICA
}

func (c *RealClient) ready() bool {
	if !c.initialized || c.closed {
		c.logf(mlog.Error, "Client is not initialized")
		return false
	}
	return true
}

// Put is put(key, value).
func (c *RealClient) Put(ctx context.Context, key string, value []byte) (int, error) {
	if !c.ready() {
		return int(mooncake.INVALID_PARAMS), nil
	}
	if size := int64(len(value)); size > c.localBufferSize() {
		// The value is copied into the local buffer first
		// (client_buffer_allocator_): no room, no RPC.
		if c.p.PutAllocSlices {
			c.logf(mlog.Error, "Failed to allocate slices for put operation, key: %s, value size: %d", key, size)
			return 1, nil
		}
		c.logf(mlog.Error, "Failed to allocate buffer for put operation, key: %s, value size: %d", key, size)
		return int(mooncake.INVALID_PARAMS), nil
	}
	code := c.putBytes(ctx, key, hostmem.Literal(value))
	if c.died != nil {
		return 0, c.died
	}
	if code != mooncake.OK && !c.p.PutNoSpaceHelper {
		// store_py.cpp / pybind_client.cpp put up to v0.3.6.post1 (real
		// 0.3.4, 0.3.6.post1); from v0.3.7 put_internal returns silently.
		c.logf(mlog.Error, "Put operation failed with error: %s", code.Name())
	}
	return int(code), nil
}

// Get is get(key): b"" on any failure.
func (c *RealClient) Get(ctx context.Context, key string) ([]byte, error) {
	if !c.ready() {
		return []byte{}, nil
	}
	if c.p.GetViaBuffer {
		ctx = withQueryLog(ctx)
	}
	data, code := c.readObject(ctx, key, true)
	if c.died != nil {
		return nil, c.died
	}
	if c.p.GetViaBuffer {
		c.getFailedLog(key, code)
	}
	if code != mooncake.OK {
		return []byte{}, nil
	}
	return data.Bytes(), nil
}

// GetBuffer is get_buffer(key): the object's size, 0 for None.
func (c *RealClient) GetBuffer(ctx context.Context, key string) (int, error) {
	if !c.ready() {
		return 0, nil
	}
	data, code := c.readObject(withQueryLog(ctx), key, true)
	if c.died != nil {
		return 0, c.died
	}
	c.getFailedLog(key, code)
	if code != mooncake.OK {
		return 0, nil
	}
	return int(data.Size), nil
}

// getFailedLog is get_buffer's line when Client::Get failed after its
// query (store_py.cpp v0.3.4.post2:628, real_client.cpp v0.3.9:1111), with
// the code Client::Get returned for a failed read: INVALID_PARAMS up to
// v0.3.4.post2 (client.cpp), the transfer's own from v0.3.5.
func (c *RealClient) getFailedLog(key string, code mooncake.ErrorCode) {
	if code != mooncake.TRANSFER_FAIL && code != mooncake.LEASE_EXPIRED {
		return
	}
	if c.p.ReadFailInvalidParams {
		code = mooncake.INVALID_PARAMS
	}
	c.logf(mlog.Error, "Get failed for key: %s with error: %s", key, code.Name())
}

// Remove is remove(key): the master's Remove (Client::Remove), 0 or
// its negative code.
func (c *RealClient) Remove(ctx context.Context, key string) (int, error) {
	if !c.ready() {
		return int(mooncake.INVALID_PARAMS), nil
	}
	if err := c.ms.Remove(ctx, key); err != nil {
		return int(c.code(err)), nil
	}
	return 0, nil
}

// IsExist is is_exist(key): 1, 0 or a negative code.
func (c *RealClient) IsExist(ctx context.Context, key string) (int, error) {
	if !c.ready() {
		return int(mooncake.INVALID_PARAMS), nil
	}
	ok, err := c.ms.ExistKey(ctx, key)
	if err != nil {
		return int(c.code(err)), nil
	}
	if ok {
		return 1, nil
	}
	return 0, nil
}

// BatchIsExist is batch_is_exist(keys).
func (c *RealClient) BatchIsExist(ctx context.Context, keys []string) ([]int, error) {
	out := make([]int, len(keys))
	if !c.ready() {
		for i := range out {
			out[i] = int(mooncake.INVALID_PARAMS)
		}
		return out, nil
	}
	res, err := c.ms.BatchExistKey(ctx, keys)
	if err != nil {
		code := c.code(err)
		for i := range out {
			out[i] = int(code)
		}
		return out, nil
	}
	for i, r := range res {
		switch {
		case r.Err != nil:
			out[i] = int(master.Code(r.Err, c.p))
		case r.Exists:
			out[i] = 1
		}
	}
	return out, nil
}

// checkBatch is the pybind11 wrapper's length check of a batch call.
func checkBatch(keys []string, ptrs []uint64, sizes []int64) error {
	if len(keys) != len(ptrs) || len(keys) != len(sizes) {
		return &engine.PyError{Class: "RuntimeError", Message: "Key and value size mismatch"}
	}
	return nil
}

// batch is what batch_put_from and batch_get_into share: the length
// check, INVALID_PARAMS for every key before setup; otherwise each key's
// result is op's. Nothing here checks that a buffer was registered: the
// TCP transport and a memcpy never ask (real 0.3.9, 0.3.13.post1:
// batch_get_into into an unregistered address returns the byte count),
// the RDMA transport refuses the transfer (rdmaTransfer).
func (c *RealClient) batch(keys []string, ptrs []uint64, sizes []int64, op func(i int, key string) (int, error)) ([]int, error) {
	if err := checkBatch(keys, ptrs, sizes); err != nil {
		return nil, err
	}
	out := make([]int, len(keys))
	if !c.ready() {
		for i := range out {
			out[i] = int(mooncake.INVALID_PARAMS)
		}
		return out, nil
	}
	// Real batch calls make one master RPC for all keys (BatchPutStart,
	// BatchGetReplicaList), so a transport failure costs one RPC and fails
	// every remaining key with the same code (real 0.3.13.post1: two refused
	// batch calls take 2 × 4.3 s, not one per key).
	var rpcFailed int
	for i, k := range keys {
		if rpcFailed != 0 {
			out[i] = rpcFailed
			continue
		}
		rc, err := op(i, k)
		if err != nil {
			return nil, err
		}
		out[i] = rc
		if rc == int(mooncake.RPC_FAIL) || rc == int(mooncake.RPC_TIMEOUT) {
			rpcFailed = rc
		}
	}
	return out, nil
}

// BatchPutFrom is batch_put_from(keys, ptrs, sizes): the source buffers
// must be registered.
func (c *RealClient) BatchPutFrom(ctx context.Context, keys []string, ptrs []uint64, sizes []int64) ([]int, error) {
	ctx = master.WithBatch(ctx, keys)
	ctx = context.WithValue(ctx, batchStartKey{}, c.d.Clock.Now())
	out, err := c.batch(keys, ptrs, sizes, func(i int, k string) (int, error) {
		data, err := c.d.Mem.ReadContent(ptrs[i], sizes[i])
		if err != nil {
			return 0, fmt.Errorf("batch_put_from %s: %w", k, err)
		}
		rc := c.putBytesIn(withZeroCopy(ctx, ptrs[i]), k, data, true)
		return int(rc), c.died
	})
	if err == nil {
		c.batchPutLog(keys, out)
		if n := countCode(out, mooncake.NO_AVAILABLE_HANDLE); n > 0 && c.p.PutNoSpaceHelper {
			// Client::CollectResults (client.cpp v0.3.7, client_service.cpp
			// v0.3.8+; real 0.3.7.post2 … 0.3.14).
			c.logf(mlog.Warning, "BatchPut failed for %d keys%s", n, mooncake.PutNoSpaceHelper)
		}
	}
	c.batchFailLog()
	return out, err
}

func countCode(out []int, code mooncake.ErrorCode) int {
	n := 0
	for _, rc := range out {
		if rc == int(code) {
			n++
		}
	}
	return n
}

func isRPCCode(code mooncake.ErrorCode) bool {
	return code == mooncake.RPC_FAIL || code == mooncake.RPC_TIMEOUT
}

// batchPutLog is Client::CollectResults for keys whose BatchPutStart RPC
// failed (the batch fails them all with one code): "Operation for key K
// failed: RPC_FAIL (<failure_context>)" per key, in key order.
func (c *RealClient) batchPutLog(keys []string, out []int) {
	for i, k := range keys {
		code := mooncake.ErrorCode(out[i])
		if !isRPCCode(code) {
			continue
		}
		ctx := code.Name() + ": Master failed to start put operation; "
		if c.p.PutContextPlain {
			ctx = "Master failed to start put operation"
		}
		c.logf(mlog.Error, "Operation for key %s failed: %s (%s)", k, code.Name(), ctx)
	}
}

// BatchGetInto is batch_get_into(keys, ptrs, sizes): bytes read or a
// negative code per key.
func (c *RealClient) BatchGetInto(ctx context.Context, keys []string, ptrs []uint64, sizes []int64) ([]int, error) {
	ctx = withBatchQuery(master.WithBatch(ctx, keys), keys)
	start := c.d.Clock.Now()
	ctx = context.WithValue(ctx, batchStartKey{}, start)
	bl := &batchLeases{start: start, ttl: map[string]time.Duration{}}
	ctx = context.WithValue(ctx, batchLeasesKey{}, bl)
	out, err := c.batch(keys, ptrs, sizes, func(i int, k string) (int, error) {
		data, code := c.getBytes(withZeroCopy(ctx, ptrs[i]), k)
		if c.died != nil {
			return 0, c.died
		}
		if code != mooncake.OK {
			return int(code), nil
		}
		if data.Size > sizes[i] {
			return int(mooncake.INVALID_PARAMS), nil
		}
		if err := c.d.Mem.WriteContent(ptrs[i], data); err != nil {
			return 0, fmt.Errorf("batch_get_into %s: %w", k, err)
		}
		return int(data.Size), nil
	})
	if err == nil {
		c.batchQueryFailedLog(ctx, keys, out)
	}
	if err == nil && c.p.LeaseExpiryCheck {
		c.expireBatchLeases(keys, out, bl)
	}
	if err == nil && c.p.BatchGetFailedLog {
		// batch_get_into's loop over Client::BatchGet's results
		// (store_py.cpp v0.3.5, real_client.cpp v0.3.9; real 0.3.9 … 0.3.14).
		for i, k := range keys {
			if code := mooncake.ErrorCode(out[i]); code == mooncake.TRANSFER_FAIL || code == mooncake.LEASE_EXPIRED {
				c.logf(mlog.Error, "BatchGet failed for key '%s': %s", k, code.Name())
			}
		}
	}
	return out, err
}

// HealthCheck is health_check(): 0 healthy, 1 not initialized/closed, 2
// master unreachable (last ping failed). Absent before 0.3.10.
func (c *RealClient) HealthCheck(context.Context) (int, error) {
	if !c.p.HealthCheck {
		return 0, noAttr(c.p, "health_check")
	}
	switch {
	case c.closed || !c.initialized:
		return 1, nil
	case !c.pingOK:
		return 2, nil
	}
	return 0, nil
}

// GetHostname is get_hostname(): the host:port actually used.
func (c *RealClient) GetHostname(context.Context) (string, error) {
	if !c.initialized {
		return "", nil
	}
	return c.hostname, nil
}

// replace destroys the current Client before setup() builds another:
// ~Client unmounts, frees the engine and joins the ping thread.
func (c *RealClient) replace(ctx context.Context) error {
	joined := c.Pinging()
	c.teardown(ctx)
	c.initialized, c.pinging, c.pingOK, c.pingFails = false, false, false, 0
	c.buffers, c.localBuf = nil, nil
	if !joined {
		return nil
	}
	return c.d.Clock.Sleep(ctx, threadJoinCost)
}

// Close is close(): unmount segments, stop the heartbeat, free the engine.
func (c *RealClient) Close(ctx context.Context) (int, error) {
	if c.closed || !c.initialized {
		c.closed = true
		return 0, nil
	}
	// ~Client joins the ping thread before it unmounts (client_service.cpp):
	// a thread inside a refused ping finishes it, reconnects if that was the
	// third failure, and sleeps its interval first. Real 0.3.11.post1 with
	// the master stopped: 13.9 s to destroy the client (explore seed 2031).
	if c.pinging && c.d.JoinPing != nil {
		if err := c.d.JoinPing(ctx, c); err != nil {
			return 0, err
		}
	}
	c.teardown(ctx)
	c.closed, c.pinging = true, false
	return 0, nil
}

// teardown unmounts every segment, frees the engine and the port.
func (c *RealClient) teardown(ctx context.Context) {
	c.unregisterLocalBuffer(ctx)
	for _, s := range c.segments {
		if err := c.ms.UnmountSegment(ctx, s.ID, c.id); err != nil {
			code := c.code(err)
			// UnmountSegmentImpl's line, then ~Client's.
			c.logf(mlog.Error, "Failed to unmount segment from master: %s", code.Name())
			c.logf(mlog.Error, "%s%s", c.p.DestructorUnmountLog, code.Name())
			continue
		}
		c.unregisterSegment(ctx, s)
	}
	c.segments = nil
	c.stopOffloadServer()
	if c.te != nil {
		c.te.Close(ctx)
	}
	if c.release != nil {
		c.release()
		c.release = nil
	}
}

// Node is the host the client runs on.
func (c *RealClient) Node() string { return c.d.Node }

// Logger is where the process's Mooncake lines go.
func (c *RealClient) Logger() mlog.Logger { return c.d.Log }

// Transport is the master transport the client was built with.
func (c *RealClient) Transport() MasterTransport { return c.d.Master }

// ID is the client_id the client pings the master with.
func (c *RealClient) ID() master.UUID { return c.id }

// MasterAddr is the master_server_addr given to setup().
func (c *RealClient) MasterAddr() string { return c.msAddr }

// Kill is the process dying under the client: no RPC, no cleanup; the
// heartbeat stops, so the master expires the client after client_ttl, and
// its rpc_meta key stays on an HTTP metadata server. Only its sockets go:
// the kernel frees the ports it bound.
func (c *RealClient) Kill() {
	c.closed, c.pinging = true, false
	c.stopOffloadServer()
	if c.te != nil {
		c.te.ReleasePorts()
	}
	for _, t := range c.leaked {
		t.ReleasePorts()
	}
	c.leaked = nil
	if c.release != nil {
		c.release()
		c.release = nil
	}
}

// Engine exposes the transfer engine (tests, standalone client).
func (c *RealClient) Engine() *te.Engine { return c.te }

// ClientID is the client's UUID.
func (c *RealClient) ClientID() master.UUID { return c.id }
