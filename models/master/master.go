package master

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// Clock is the master's time source (virtual in sim, wall in fake).
type Clock interface{ Now() time.Duration }

// Config is mooncake_master's behaviour-relevant gflags.
type Config struct {
	Version                    mooncake.Profile
	ClientTTL                  time.Duration // --client_ttl (s)
	DefaultKVLeaseTTL          time.Duration // --default_kv_lease_ttl (ms)
	EvictionHighWatermarkRatio float64       // --eviction_high_watermark_ratio
	EvictionRatio              float64       // --eviction_ratio
	PutStartDiscardTimeout     time.Duration // --put_start_discard_timeout_sec
	// PutStartReleaseTimeout is --put_start_release_timeout_sec (600 s):
	// also the offloading tasks' TTL (offloadtasks.go).
	PutStartReleaseTimeout time.Duration
	// EnableOffload is --enable_offload (MountLocalDiskSegment accepted).
	EnableOffload bool
	// RootFsDir is --root_fs_dir: each put also gets a DISK replica, a
	// file the client writes under it (fsreplica.go).
	RootFsDir string
	// EnableHA is --enable_ha: up to 0.3.6 (Profile.Heartbeat false) the
	// client monitor runs, and MountSegment starts timing its client, only
	// then (master_service.cpp v0.3.4.post2:41, 73-91).
	EnableHA bool
	// RPCVersion is what ServiceReady answers (RPCVersion unless a test
	// models a foreign master).
	RPCVersion string
	// RPCAddress is --rpc_address, the host the RPC server binds
	// (default "0.0.0.0"; RPCListens).
	RPCAddress string
	// HTTPMetadataHost is --http_metadata_server_host (default "0.0.0.0";
	// MetadataListens).
	HTTPMetadataHost string
	// MetricsHost is --metrics_host (0.3.13+, default "0.0.0.0"), the
	// host the admin HTTP server binds (admin.go).
	MetricsHost string
	// ClientSuspicionTTL is --client_suspicion_ttl_sec (Profile.ClientLiveness):
	// 20 s, or --client_ttl when that is given (real 0.3.14 with
	// --client_ttl=5 and 3: offline 5 and 3 s after suspected).
	ClientSuspicionTTL time.Duration
	// EnableMetricReporting is --enable_metric_reporting (default true):
	// the metrics summary every MetricReportPeriod (summary.go).
	EnableMetricReporting bool
	// RPCProtocol is "rdma" or "tcp", from the master's MC_RPC_PROTOCOL
	// (RPCProtocol; rpcprotocol.go); "" = tcp.
	RPCProtocol string
	// RNIC: the master's host has an RDMA device (what an RDMA server
	// needs to accept; rpcprotocol.go).
	RNIC bool
	// EnableMetadataCleanupOnTimeout is --enable_metadata_cleanup_on_timeout
	// (0.3.12+), EnableHTTPMetadataServer --enable_http_metadata_server,
	// CleanupEnv the environment that resolves the cleanup's metadata
	// server (cleanupconfig.go; WithEnv).
	EnableMetadataCleanupOnTimeout bool
	EnableHTTPMetadataServer       bool
	CleanupEnv                     CleanupEnv
}

// Background-thread periods of master_service.h.
const (
	EvictionPeriod      = 10 * time.Millisecond   // kEvictionThreadSleepMs
	ClientMonitorPeriod = 1000 * time.Millisecond // kClientMonitorSleepMs
)

// ConfigFor builds the config of version p with gflag overrides (gflag
// names; unknown names are an error, as gflags makes them fatal).
func ConfigFor(p mooncake.Profile, flags map[string]string) (Config, error) {
	c := Config{
		Version:                    p,
		ClientTTL:                  time.Duration(p.ClientTTLSeconds) * time.Second,
		ClientSuspicionTTL:         time.Duration(p.ClientSuspicionTTLSeconds) * time.Second,
		DefaultKVLeaseTTL:          time.Duration(p.DefaultKVLeaseTTLms) * time.Millisecond,
		EvictionHighWatermarkRatio: p.EvictionHighWatermark,
		EvictionRatio:              p.EvictionRatio,
		PutStartDiscardTimeout:     30 * time.Second,
		PutStartReleaseTimeout:     600 * time.Second,
		RPCVersion:                 RPCVersion,
		RPCAddress:                 "0.0.0.0",
		HTTPMetadataHost:           "0.0.0.0",
		MetricsHost:                "0.0.0.0",
		EnableMetricReporting:      true,
	}
	for _, k := range slices.Sorted(maps.Keys(flags)) {
		v := flags[k]
		var err error
		switch k {
		case "client_ttl":
			pv, ferr := gflag(p, k, v)
			if ferr != nil {
				return c, ferr
			}
			c.ClientTTL = time.Duration(pv.Int) * time.Second
			if p.ClientLiveness {
				c.ClientSuspicionTTL = c.ClientTTL
			}
		case "default_kv_lease_ttl":
			c.DefaultKVLeaseTTL, err = parseLeaseTTL(p, v)
			if err != nil {
				return c, err
			}
		case "eviction_high_watermark_ratio", "eviction_ratio":
			if _, ferr := gflag(p, k, v); ferr != nil {
				return c, ferr
			}
			f, _ := strconv.ParseFloat(v, 64)
			if k == "eviction_ratio" {
				c.EvictionRatio = f
			} else {
				c.EvictionHighWatermarkRatio = f
			}
		case "put_start_discard_timeout_sec":
			pv, ferr := gflag(p, k, v)
			if ferr != nil {
				return c, ferr
			}
			c.PutStartDiscardTimeout = time.Duration(pv.Uint) * time.Second
		case "put_start_release_timeout_sec":
			pv, ferr := gflag(p, k, v)
			if ferr != nil {
				return c, ferr
			}
			c.PutStartReleaseTimeout = time.Duration(pv.Uint) * time.Second
		case "rpc_version": // sim-only: a master built from another tree
			c.RPCVersion = v
		case "enable_offload":
			c.EnableOffload, err = strconv.ParseBool(v)
		case "root_fs_dir":
			c.RootFsDir = v
		case "enable_ha":
			c.EnableHA, err = strconv.ParseBool(v)
		case "enable_metric_reporting":
			c.EnableMetricReporting, err = strconv.ParseBool(v)
		case "rpc_address":
			c.RPCAddress = v
		case "http_metadata_server_host":
			c.HTTPMetadataHost = v
		case "metrics_host":
			c.MetricsHost = v
		case "enable_http_metadata_server":
			c.EnableHTTPMetadataServer, err = strconv.ParseBool(v)
		case "enable_metadata_cleanup_on_timeout":
			if !p.Version.AtLeast(metadataCleanupFrom) {
				return c, fmt.Errorf("mooncake_master: unknown command line flag '%s'", k)
			}
			c.EnableMetadataCleanupOnTimeout, err = strconv.ParseBool(v)
		case "port", "rpc_port", "max_threads", "rpc_thread_num",
			"http_metadata_server_port", "metrics_port",
			"memory_allocator", "enable_multi_tenants", "allocation_strategy", "default_kv_soft_pin_ttl",
			"cluster_id", "rpc_enable_tcp_no_delay", "rpc_conn_timeout_seconds", "logtostderr", "v":
			// Accepted; no behaviour in the model.
		default:
			return c, fmt.Errorf("mooncake_master: unknown command line flag '%s'", k)
		}
		if err != nil {
			return c, fmt.Errorf("mooncake_master: flag --%s=%s: %w", k, v, err)
		}
	}
	return c, nil
}

// gflag is a flag as mooncake_master's release parses it (mooncake.Knobs):
// a value gflags rejects is the process's exit, in gflags' words.
func gflag(p mooncake.Profile, name, v string) (mooncake.Value, error) {
	pv := mooncake.ParseKnob(p.Version, name, v, true)
	if pv.Exit != "" {
		return pv, fmt.Errorf("mooncake_master exited (exit status 1): %s", pv.Exit)
	}
	return pv, nil
}

// parseLeaseTTL reads --default_kv_lease_ttl as version p does
// (mooncake.Knobs): a uint64 gflag of milliseconds up to 0.3.10, a
// duration string (ms|s|m|h) from 0.3.10.post1. A value the version
// rejects is mooncake_master's exit, with its words (real 0.3.9: "illegal
// value '5s' specified for uint64 flag"; real 0.3.11.post1 and
// 0.3.13.post1 for "5sec": "Invalid value for --default_kv_lease_ttl: …").
func parseLeaseTTL(p mooncake.Profile, v string) (time.Duration, error) {
	pv := mooncake.ParseKnob(p.Version, "default_kv_lease_ttl", v, true)
	if pv.Exit != "" {
		msg := pv.Exit
		if strings.HasPrefix(msg, "Invalid value") {
			msg += fmt.Sprintf(" ERROR: failed validation of new value '%s' for flag 'default_kv_lease_ttl'", v)
		}
		return 0, fmt.Errorf("mooncake_master exited (exit status 1): %s", msg)
	}
	return time.Duration(pv.Uint) * time.Millisecond, nil
}

type segment struct {
	Segment
	client UUID
	allocs []alloc // sorted by offset
	used   int64
}

type alloc struct {
	off, size int64
	key       string
}

type object struct {
	key      string
	size     int64
	replicas []Replica // memory replicas
	// disk are its LOCAL_DISK replicas (SSD offload), one per client.
	disk []diskReplica
	// offloadPin: PutEnd queued it for offload and pinned its memory
	// replica (inc_refcnt) until NotifyOffloadSuccess: not evictable.
	offloadPin bool
	// fs is its DISK replica (--root_fs_dir; fsreplica.go).
	fs        fsReplica
	complete  bool
	putStart  time.Duration
	lease     time.Duration // lease expiry
	lastTouch time.Duration
}

// diskReplica is a LOCAL_DISK replica: on client's FileStorage, read
// through its offload RPC server at endpoint.
type diskReplica struct {
	client   UUID
	endpoint string
	size     int64
}

// Master is the master's state. Background threads (eviction every 10 ms,
// client monitor every 1 s) are evaluated lazily at each RPC, at the tick
// they would have run on, so no goroutine and no timer is needed.
type Master struct {
	cfg   Config
	clock Clock
	log   mlog.Logger
	rng   *rand.Rand

	segments     []*segment // mount order
	okClients    map[UUID]bool
	clientTTL    map[UUID]time.Duration // expiry time
	pingStalled  map[UUID]time.Duration // the clock's stalls at the last ping (StallClock)
	suspected    map[UUID]suspicion     // Profile.ClientLiveness: suspected clients (liveness.go)
	offboarded   map[UUID]bool          // Profile.ClientLiveness: taken offline, not remounted since
	objects      map[string]*object
	viewVersion  int64
	needEviction bool
	lastEvict    time.Duration
	lastMonitor  time.Duration
	// batchNoSpace counts NO_AVAILABLE_HANDLE per batch call in flight
	// (BatchPos.ID), for rpc_service.cpp's one warning at the batch's end;
	// batchOpen is when each batch in flight started.
	batchNoSpace map[string]int
	batchOpen    map[string]time.Duration
	// offloading is each client's local disk segment (mounted by
	// MountLocalDiskSegment) and its offloading queue: the keys PutEnd
	// pushed for its FileStorage's next OffloadObjectHeartbeat.
	offloading map[UUID][]OffloadObject
	// offloadTasks: each queued key's offloading task and when it
	// started; lastDiscard the reaper's last pass (offloadtasks.go).
	offloadTasks map[string]time.Duration
	lastDiscard  time.Duration
	// metrics and summary: MasterMetricManager's counters and the report
	// thread that logs them (summary.go).
	metrics metrics
	summary summaryState
	// ibConns counts the connections an RDMA server tried to accept
	// (rpcprotocol.go: coro_connection's conn_id).
	ibConns int
}

// batchWindow bounds how long a batch call counts as in flight: real's
// BatchPutStart is one RPC, so a batch whose last key never came (an
// address the client refused) must not hold eviction back for long.
const batchWindow = time.Second

// New returns a freshly started master (also: the state after a restart).
func New(cfg Config, clock Clock, log mlog.Logger, rng *rand.Rand) *Master {
	if log == nil {
		log = mlog.Discard{}
	}
	now := clock.Now()
	m := &Master{
		cfg: cfg, clock: clock, log: log, rng: rng,
		okClients: map[UUID]bool{}, clientTTL: map[UUID]time.Duration{}, pingStalled: map[UUID]time.Duration{},
		objects: map[string]*object{}, viewVersion: 1,
		lastEvict: now, lastMonitor: now, lastDiscard: now, batchNoSpace: map[string]int{}, batchOpen: map[string]time.Duration{},
		offloading: map[UUID][]OffloadObject{}, suspected: map[UUID]suspicion{}, offboarded: map[UUID]bool{},
	}
	// The report thread's first summary is at start. The model's HA
	// masters (leader and standby) print none: their role/state fields are
	// not modelled.
	m.summary.enabled = cfg.EnableMetricReporting && !cfg.EnableHA
	m.logMetadataCleanup()
	m.reportDue(now)
	return m
}

// Config returns the effective configuration.
func (m *Master) Config() Config { return m.cfg }

// catchUp runs the background threads' ticks due by now.
func (m *Master) catchUp() time.Duration {
	now := m.clock.Now()
	m.monitorUntil(now)
	// Each summary due reads the counters of its tick: the eviction
	// passes up to it first.
	m.reportDue(now)
	m.evictUntil(now)
	m.discardUntil(now)
	return now
}

// evictUntil runs the eviction thread's passes due by t. The passes
// between two RPCs see the same state, so one evaluation stands for them
// all; a pass that frees nothing is counted once for each of them
// (inc_eviction_fail every kEvictionThreadSleepMs: real counts ~100 a
// second while eviction is starved, REAL-FINDINGS §61).
func (m *Master) evictUntil(t time.Duration) {
	if t-m.lastEvict >= EvictionPeriod && !m.batchInFlight(t) {
		k := (t - m.lastEvict) / EvictionPeriod
		m.lastEvict += k * EvictionPeriod
		m.evictIfNeeded(t, int64(k))
	}
}

// batchInFlight: a batch call's keys are being placed. Real places them
// all in one BatchPutStart, so the eviction thread cannot run between two
// of them; the model's per-key calls let other RPCs (a ping) in between.
func (m *Master) batchInFlight(now time.Duration) bool {
	for id, t := range m.batchOpen {
		if now-t < batchWindow {
			return true
		}
		delete(m.batchOpen, id)
	}
	return false
}

// monitorUntil runs the client monitor's tick due by now (≤ 0.3.6: only
// in HA mode).
func (m *Master) monitorUntil(now time.Duration) {
	if (m.cfg.Version.Heartbeat || m.cfg.EnableHA) && now-m.lastMonitor >= ClientMonitorPeriod {
		m.lastMonitor += (now - m.lastMonitor) / ClientMonitorPeriod * ClientMonitorPeriod
		m.monitorClients(m.lastMonitor)
	}
}

// Monitor runs the client monitor's tick due now, as its thread does
// between RPCs: an engine in virtual time calls it every
// ClientMonitorPeriod, so the monitor's lines come at their tick and not
// at the next RPC.
func (m *Master) Monitor() {
	now := m.clock.Now()
	m.monitorUntil(now)
	m.discardUntil(now) // the reaper's lines at their tick too
}

// ClientMonitorFunc: expire clients without a ping for client_ttl.
func (m *Master) monitorClients(at time.Duration) {
	if m.cfg.Version.ClientLiveness {
		m.monitorLiveness(at)
		return
	}
	var expired []UUID
	for id, exp := range m.clientTTL {
		if exp+m.stalled()-m.pingStalled[id] < at {
			expired = append(expired, id)
		}
	}
	sortedClients(expired)
	// Every expired client first, then each of their segments unmounted
	// (ClientMonitorFunc's two phases, master_service.cpp v0.3.9:2008-2077).
	var gone []*segment
	for _, id := range expired {
		m.log.Log(mlog.Info, fmt.Sprintf("client_id=%s, action=client_expired", id))
		delete(m.clientTTL, id)
		delete(m.pingStalled, id)
		delete(m.okClients, id)
		for _, s := range m.segments {
			if s.client == id {
				gone = append(gone, s)
			}
		}
	}
	for _, s := range gone {
		m.unmount(s)
		if a := m.cfg.Version.MasterUnmountExpiredAction; a != "" {
			m.log.Log(mlog.Info, fmt.Sprintf("client_id=%s, segment_name=%s, action=%s", s.client, s.Name, a))
		}
	}
	// ClearInvalidHandles drops the expired clients' LOCAL_DISK replicas,
	// then UnmountLocalDiskSegment their disk segments
	// (master_service.cpp v0.3.11.post1:4995-5015, segment.cpp:341; from
	// v0.3.10.post2, silent from 0.3.13: Profile.ExpiryUnmountsDiskSegment).
	// Before, the segment stays: the FileStorage heartbeat goes on.
	if !m.cfg.Version.ExpiryUnmountsDiskSegment {
		return
	}
	for _, id := range expired {
		if m.dropLocalDisk(id) && m.cfg.Version.ExpiryDiskSegmentLine {
			m.log.Log(mlog.Info, fmt.Sprintf("client_id=%s, action=unmount_local_disk_segment", id))
		}
	}
}

// dropLocalDisk drops a gone client's LOCAL_DISK replicas (an object left
// with none is erased) and its local disk segment; false if it mounted
// none.
func (m *Master) dropLocalDisk(id UUID) bool {
	if _, ok := m.offloading[id]; !ok {
		return false
	}
	for _, o := range m.objects {
		o.disk = slices.DeleteFunc(o.disk, func(d diskReplica) bool { return d.client == id })
		if len(o.disk) == 0 && len(o.replicas) == 0 && !o.fs.complete {
			delete(m.objects, o.key)
		}
	}
	delete(m.offloading, id)
	return true
}

// unmount removes a segment and every object with a replica on it
// (their memory replicas only, for objects also on disk).
func (m *Master) unmount(s *segment) {
	for i, x := range m.segments {
		if x == s {
			m.segments = append(m.segments[:i], m.segments[i+1:]...)
			break
		}
	}
	for _, a := range s.allocs {
		if o, ok := m.objects[a.key]; ok {
			// An object offloaded to SSD keeps its LOCAL_DISK replica
			// (real 0.3.11.post1, docs/REAL-FINDINGS.md §47 item 3).
			m.evictMemory(o)
		}
	}
}

func (m *Master) capacity() (used, total int64) {
	for _, s := range m.segments {
		used += s.used
		total += s.Size
	}
	return
}

// EvictionThreadFunc: evict when used ratio is above the high watermark, or
// a PutStart failed for lack of space.
func (m *Master) evictIfNeeded(now time.Duration, passes int64) {
	used, total := m.capacity()
	if total == 0 {
		m.needEviction = false
		return
	}
	ratio := float64(used) / float64(total)
	if !(ratio > m.cfg.EvictionHighWatermarkRatio || (m.needEviction && m.cfg.EvictionRatio > 0)) {
		return
	}
	target := max(m.cfg.EvictionRatio, ratio-m.cfg.EvictionHighWatermarkRatio+m.cfg.EvictionRatio)
	// BatchEvict reaps the expired tasks first (DiscardExpiredProcessingReplicas
	// in each shard), and the thread's last_discard_time is now.
	m.discardExpired(now)
	// Candidates: complete, lease expired; oldest touch first (approximate LRU).
	var cands []*object
	for _, o := range m.objects {
		// can_evict_replicas: a memory replica to free (an object on disk
		// only frees nothing).
		if o.complete && o.lease <= now && len(o.replicas) > 0 && !o.offloadPin && !o.fs.repinned {
			cands = append(cands, o)
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].lastTouch != cands[j].lastTouch {
			return cands[i].lastTouch < cands[j].lastTouch
		}
		return cands[i].key < cands[j].key
	})
	if m.cfg.Version.EvictPassLines {
		m.log.Log(mlog.Info, fmt.Sprintf("[EVICT-TRIGGER] memory_ratio=%s high_watermark=%s %s=%d eviction_ratio=%s",
			cfloat(ratio), cfloat(m.cfg.EvictionHighWatermarkRatio), m.cfg.Version.EvictNeedField, b2i(m.needEviction), cfloat(m.cfg.EvictionRatio)))
	}
	n := int(float64(len(m.objects))*target + 0.999999)
	if n < 1 && len(cands) > 0 {
		n = 1
	}
	evicted, freed := 0, int64(0)
	for i := 0; i < n && i < len(cands); i++ {
		freed += cands[i].size * int64(len(cands[i].replicas))
		m.evictMemory(cands[i])
		evicted++
	}
	if v := m.cfg.Version; v.EvictResultLines {
		// BatchEvict's base: the complete objects it looked at.
		base := 0
		for _, o := range m.objects {
			if o.complete {
				base++
			}
		}
		base += evicted
		actual := 0.0
		if base > 0 {
			actual = float64(evicted) / float64(base)
		}
		line := fmt.Sprintf("[EVICT-RESULT] evicted_count=%d, eviction_base=%d, actual_evict_ratio=%s", evicted, base, cfloat(actual))
		if v.EvictTargetRatio {
			line += ", target_evict_ratio=" + cfloat(target)
		}
		m.log.Log(mlog.Info, line)
	}
	if m.cfg.Version.EvictPassLines {
		m.log.Log(mlog.Info, "[EVICT-DONE] BatchEvict execution completed.")
	}
	// BatchEvict keeps asking while a pass frees nothing and objects remain
	// (master_service.cpp v0.3.9:1976-1984; real 0.3.13.post1 and 0.3.14
	// repeat [EVICT-TRIGGER] need_mem_eviction=1 every pass while every
	// object is leased).
	if evicted > 0 || len(m.objects) == 0 {
		m.needEviction = false
	}
	// inc_eviction_success / inc_eviction_fail (master_service.cpp
	// v0.3.9:1976-1986): every pass is an attempt.
	switch {
	case evicted > 0:
		m.metrics.evictSuccess++
		m.metrics.evictAttempts++
		m.metrics.evictedKeys += int64(evicted)
		m.metrics.evictedSize += freed
	case len(m.objects) == 0:
		m.metrics.evictAttempts++
	default:
		m.metrics.evictAttempts += passes
	}
}

// cfloat is a double as C++'s ostream prints it by default (six
// significant digits, no trailing zeros).
func cfloat(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (m *Master) removeObject(o *object) {
	m.eraseOffloadTask(o.key)
	delete(m.objects, o.key)
	m.freeMemory(o)
}

// evictMemory is BatchEvict's evict_replicas: the memory replicas go; an
// object with a LOCAL_DISK replica stays valid and is read from disk
// (master_service.cpp v0.3.11.post1:4484-4525).
func (m *Master) evictMemory(o *object) {
	if len(o.disk) == 0 && !o.fs.complete {
		m.removeObject(o)
		return
	}
	m.freeMemory(o)
	o.replicas = nil
	o.fs.afterMemoryErased(len(o.disk) > 0)
}

// freeMemory returns the segment space of o's memory replicas.
func (m *Master) freeMemory(o *object) {
	for _, s := range m.segments {
		kept := s.allocs[:0]
		for _, a := range s.allocs {
			if a.key == o.key {
				s.used -= a.size
				continue
			}
			kept = append(kept, a)
		}
		s.allocs = kept
	}
}

// allocate finds first-fit room in one segment; allocs stay sorted by offset.
func (s *segment) allocate(size int64, key string) (int64, bool) {
	var off int64
	for i, a := range s.allocs {
		if a.off-off >= size {
			s.allocs = slices.Insert(s.allocs, i, alloc{off: off, size: size, key: key})
			s.used += size
			return off, true
		}
		off = a.off + a.size
	}
	if s.Size-off >= size {
		s.allocs = append(s.allocs, alloc{off: off, size: size, key: key})
		s.used += size
		return off, true
	}
	return 0, false
}

// ServiceReady implements Service.
func (m *Master) ServiceReady(context.Context) (string, error) {
	m.catchUp()
	return m.cfg.RPCVersion, nil
}

// GetStorageConfig implements Service: --root_fs_dir's fsdir (fsreplica.go).
func (m *Master) GetStorageConfig(context.Context) (StorageConfig, error) {
	m.catchUp()
	return m.storageConfig(), nil
}

func (m *Master) touchClient(id UUID, now time.Duration) {
	m.clientTTL[id] = now + m.cfg.ClientTTL
	m.pingStalled[id] = m.stalled()
}

// StallClock is a Clock that knows how long its process could not run
// (the fake engine's: its Mooncake time is wall time magnified 1/scale,
// and a pause of the harness is not a Mooncake event). A client's pings
// were due during such a pause: its client_ttl is extended by as much.
type StallClock interface{ Stalled() time.Duration }

func (m *Master) stalled() time.Duration {
	if c, ok := m.clock.(StallClock); ok {
		return c.Stalled()
	}
	return 0
}

// MountSegment implements Service. It does not make the client OK: only
// ReMountSegment adds to ok_client_, so a client's first ping is answered
// NEED_REMOUNT at every version (master_service.cpp v0.3.9 … v0.3.12.post1;
// types.h: "Ping ttl expired, or the first time connect to master").
func (m *Master) MountSegment(_ context.Context, seg Segment, clientID UUID) error {
	now := m.catchUp()
	m.observe(clientID, "memory_mount")
	m.touchClient(clientID, now)
	if m.cfg.Version.MasterLogsMount {
		m.log.Log(mlog.Info, fmt.Sprintf("client_id=%s, action=mount_segment, segment_name=%s", clientID, seg.Name))
	}
	_, err := m.mount(seg, clientID)
	return err
}

// mount is ScopedSegmentAccess::MountSegment: an already mounted segment
// id is SEGMENT_ALREADY_EXISTS, which both callers treat as success.
func (m *Master) mount(seg Segment, clientID UUID) (exists bool, err error) {
	for _, s := range m.segments {
		if s.ID == seg.ID {
			m.log.Log(mlog.Warning, fmt.Sprintf("segment_name=%s, warn=segment_already_exists", seg.Name))
			return true, nil
		}
	}
	if seg.Size <= 0 {
		return false, mooncake.INVALID_PARAMS
	}
	m.segments = append(m.segments, &segment{Segment: seg, client: clientID})
	return false, nil
}

// ReMountSegment implements Service (MasterService::ReMountSegment and
// ScopedSegmentAccess::ReMountSegment): a client already OK is left alone;
// otherwise each segment is mounted again (one already there logs
// segment_already_exists twice, once per layer; once at 0.3.14) and the
// client becomes OK.
func (m *Master) ReMountSegment(_ context.Context, segs []Segment, clientID UUID) error {
	now := m.catchUp()
	if m.okClients[clientID] {
		m.log.Log(mlog.Warning, fmt.Sprintf("client_id=%s, warn=client_already_remounted", clientID))
		return nil
	}
	m.touchClient(clientID, now)
	for _, s := range segs {
		exists, err := m.mount(s, clientID)
		switch {
		case exists && !m.cfg.Version.RemountExistsOnce:
			m.log.Log(mlog.Warning, fmt.Sprintf("segment_name=%s, warn=segment_already_exists", s.Name))
		case err != nil:
			// INVALID_PARAMS is ignored: a new remount cannot solve it.
			m.log.Log(mlog.Warning, fmt.Sprintf("segment_name=%s, warn=invalid_params", s.Name))
		}
	}
	m.okClients[clientID] = true
	delete(m.offboarded, clientID)
	return nil
}

// MountLocalDiskSegment is the SSD-offload mount (client file storage):
// UNABLE_OFFLOAD unless --enable_offload.
func (m *Master) MountLocalDiskSegment(_ context.Context, clientID UUID) error {
	m.catchUp()
	if !m.cfg.EnableOffload {
		return mooncake.UNABLE_OFFLOAD
	}
	if _, ok := m.offloading[clientID]; !ok {
		m.offloading[clientID] = nil
	}
	return nil
}

// OffloadObjectHeartbeat hands a client's FileStorage the keys queued
// for it and empties its queue (master_service.cpp v0.3.11.post1
// OffloadObjectHeartbeat: std::move of offloading_objects).
func (m *Master) OffloadObjectHeartbeat(_ context.Context, clientID UUID) ([]OffloadObject, error) {
	m.catchUp()
	if m.offboarded[clientID] {
		// 0.3.14: an offline client's heartbeat before its remount (real,
		// three runs of three: the first heartbeat after the thaw;
		// docs/REAL-FINDINGS.md §79). No master line.
		return nil, mooncake.UNAVAILABLE_IN_CURRENT_STATUS
	}
	q, ok := m.offloading[clientID]
	if !ok {
		// master_service.cpp v0.3.8.post1 … 3b5a594 (v0.3.11.post1:2629).
		m.log.Log(mlog.Error, fmt.Sprintf("Local disk segment not found with client id = %s", clientID))
		return nil, mooncake.SEGMENT_NOT_FOUND
	}
	m.offloading[clientID] = nil
	return q, nil
}

// NotifyOffloadSuccess is AddReplica for each key of a written bucket
// (master_service.cpp v0.3.11.post1:1426-1470, 2706-2740): a key the
// master no longer holds is created again with the disk replica alone; a
// disk replica of this client is updated in place; another client's keeps
// its place and this one is not added. A negative size is the NACK of a
// key drained but not written (v0.3.12.post1 :4702-4721): its memory
// replica is unpinned, nothing added.
func (m *Master) NotifyOffloadSuccess(_ context.Context, clientID UUID, endpoint string, objs []OffloadObject) error {
	now := m.catchUp()
	for _, x := range objs {
		o, ok := m.objects[x.Key]
		if ok {
			// Only a key whose metadata is there (accessor.Exists()).
			m.endOffloadTask(x.Key)
		}
		if x.Size < 0 {
			if ok {
				o.offloadPin = false
			}
			continue
		}
		if !ok {
			o = &object{key: x.Key, size: x.Size, complete: true, putStart: now, lastTouch: now}
			m.objects[x.Key] = o
		}
		o.offloadPin = false
		switch i := slices.IndexFunc(o.disk, func(d diskReplica) bool { return d.client == clientID }); {
		case i >= 0:
			o.disk[i].endpoint, o.disk[i].size = endpoint, x.Size
		case len(o.disk) == 0:
			o.disk = []diskReplica{{client: clientID, endpoint: endpoint, size: x.Size}}
		}
	}
	return nil
}

// EvictDiskReplicas is BatchEvictDiskReplica with LOCAL_DISK
// (master_service.cpp v0.3.11.post1:1803-1846): each key's LOCAL_DISK
// replicas of this client go, and an object left with no replica is
// erased; a key not found is OBJECT_NOT_FOUND with an INFO line.
func (m *Master) EvictDiskReplicas(_ context.Context, clientID UUID, keys []string) []error {
	m.catchUp()
	errs := make([]error, len(keys))
	for i, k := range keys {
		o, ok := m.objects[k]
		if !ok {
			m.log.Log(mlog.Info, fmt.Sprintf("key=%s, info=object_not_found_for_eviction", k))
			errs[i] = mooncake.OBJECT_NOT_FOUND
			continue
		}
		o.disk = slices.DeleteFunc(o.disk, func(d diskReplica) bool { return d.client == clientID })
		if len(o.disk) == 0 && len(o.replicas) == 0 && !o.fs.complete {
			m.removeObject(o)
		}
	}
	return errs
}

// pushOffloading is PutEnd's offload step with --enable_offload and
// offload_on_evict off (master_service.cpp v0.3.11.post1:1390-1404,
// PushOffloadingQueue): each complete memory replica's key goes to the
// queue of the client owning its segment, if that client mounted a local
// disk segment, and the replica is pinned against eviction until the
// bucket is reported (real 0.3.11.post1: eviction passes over it until
// then, docs/REAL-FINDINGS.md §51). Remove does not take a queued key back out, so the
// FileStorage may query a key that is gone.
func (m *Master) pushOffloading(o *object) {
	if !m.cfg.EnableOffload {
		return
	}
	for _, r := range o.replicas {
		for _, s := range m.segments {
			if s.Name != r.SegmentName {
				continue
			}
			q, ok := m.offloading[s.client]
			if !ok || slices.ContainsFunc(q, func(x OffloadObject) bool { return x.Key == o.key }) {
				continue
			}
			m.offloading[s.client] = append(q, OffloadObject{Key: o.key, Size: o.size})
			o.offloadPin = m.cfg.Version.OffloadQueuePins
			m.startOffloadTask(o.key, m.clock.Now())
		}
	}
}

// UnmountSegment implements Service.
func (m *Master) UnmountSegment(_ context.Context, segmentID UUID, clientID UUID) error {
	m.catchUp()
	for _, s := range m.segments {
		if s.ID == segmentID {
			m.unmount(s)
			return nil
		}
	}
	// ScopedSegmentAccess::PrepareUnmountSegment's warning, and
	// MasterService::UnmountSegment answers OK: an idempotent operation
	// (segment.cpp v0.3.4:98, v0.3.9:163, v0.3.12.post1:270, 3b5a594:335;
	// master_service.cpp at the same tags). A client unmounting after the
	// master restarted or expired it sees no error.
	m.log.Log(mlog.Warning, fmt.Sprintf("segment_id=%s, warn=segment_not_found", segmentID))
	return nil
}

// Ping implements Service.
func (m *Master) Ping(_ context.Context, clientID UUID) (PingResponse, error) {
	now := m.catchUp()
	m.metrics.ping++
	st := ClientOK
	if !m.okClients[clientID] {
		st = NeedRemount
	}
	m.observe(clientID, "ping")
	m.touchClient(clientID, now)
	return PingResponse{ViewVersion: m.viewVersion, Status: st}, nil
}

// ExistKey implements Service: a complete object gets a lease.
func (m *Master) ExistKey(_ context.Context, key string) (bool, error) {
	m.metrics.exist++
	return m.existKey(m.catchUp(), key), nil
}

func (m *Master) existKey(now time.Duration, key string) bool {
	o, ok := m.objects[key]
	if !ok || !o.complete {
		return false
	}
	if reps, disk := m.servable(o); len(reps)+len(disk) == 0 {
		return false
	}
	o.lease = max(o.lease, now+m.cfg.DefaultKVLeaseTTL)
	return true
}

// BatchExistKey implements Service.
func (m *Master) BatchExistKey(_ context.Context, keys []string) ([]ExistResult, error) {
	now := m.catchUp()
	m.metrics.batchExist.req++
	m.metrics.batchExist.items += int64(len(keys))
	out := make([]ExistResult, len(keys))
	for i, k := range keys {
		out[i] = ExistResult{Exists: m.existKey(now, k)}
	}
	return out, nil
}

// PutStart implements Service (RandomAllocationStrategy over mounted
// segments; no room → NO_AVAILABLE_HANDLE and eviction on the next tick).
// In a batch call (BatchOf) it is one key of WrappedMasterService::
// BatchPutStart, which from v0.3.7 warns once after the last key how many
// found no space.
func (m *Master) PutStart(ctx context.Context, key string, size int64, cfg ReplicateConfig) ([]Replica, error) {
	b, ok := BatchPosOf(ctx, key)
	// Real's BatchPutStart places every key in one RPC: no background
	// tick (an eviction a failed key asked for) runs between its keys,
	// which the fake engine's wall clock would otherwise let in.
	now := m.clock.Now()
	if !ok || b.Index <= 0 {
		now = m.catchUp()
	}
	reps, err := m.putStart(now, key, size, cfg)
	if errors.Is(err, mooncake.NO_AVAILABLE_HANDLE) {
		m.metrics.allocFail++
	}
	if !ok {
		m.metrics.putStart++
		if err != nil {
			m.metrics.putStartFail++
		}
		return reps, err
	}
	m.countBatchPutStart(b, err != nil)
	if b.Index == 0 {
		delete(m.batchNoSpace, b.ID)
		m.batchOpen[b.ID] = now
	}
	if errors.Is(err, mooncake.NO_AVAILABLE_HANDLE) {
		m.batchNoSpace[b.ID]++
	}
	var code mooncake.ErrorCode
	if errors.As(err, &code) {
		v := m.cfg.Version
		quiet := code == mooncake.OBJECT_ALREADY_EXISTS || code == mooncake.NO_AVAILABLE_HANDLE
		if v.BatchPutKeyErrors || (v.PutNoSpaceHelper && !quiet) {
			m.log.Log(mlog.Error, fmt.Sprintf("BatchPutStart failed for key[%d] '%s': %s", b.Index, key, code.Name()))
		}
	}
	if b.Index == b.N-1 {
		if n := m.batchNoSpace[b.ID]; n > 0 && m.cfg.Version.PutNoSpaceHelper {
			m.log.Log(mlog.Warning, fmt.Sprintf("BatchPutStart failed for %d keys%s", n, mooncake.PutNoSpaceHelper))
		}
		delete(m.batchNoSpace, b.ID)
		delete(m.batchOpen, b.ID)
	}
	return reps, err
}

func (m *Master) putStart(now time.Duration, key string, size int64, cfg ReplicateConfig) ([]Replica, error) {
	if size <= 0 {
		return nil, mooncake.INVALID_PARAMS
	}
	if o, ok := m.objects[key]; ok {
		if !o.complete && o.putStart+m.cfg.PutStartDiscardTimeout < now {
			m.removeObject(o)
		} else {
			m.log.Log(mlog.Info, fmt.Sprintf("key=%s, info=object_already_exists", key))
			return nil, mooncake.OBJECT_ALREADY_EXISTS
		}
	}
	n := max(cfg.ReplicaNum, 1)
	order := make([]*segment, 0, len(m.segments))
	var preferred *segment
	for _, s := range m.segments {
		if _, ok := m.suspected[s.client]; ok {
			continue // a suspected client's segment takes no puts (ClientLiveness)
		}
		if cfg.PreferredSegment != "" && s.Name == cfg.PreferredSegment {
			preferred = s
			continue
		}
		order = append(order, s)
	}
	if m.rng != nil {
		m.rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	if preferred != nil {
		order = append([]*segment{preferred}, order...)
	}
	var reps []Replica
	var taken []*segment
	for _, s := range order {
		if len(reps) == n {
			break
		}
		off, ok := s.allocate(size, key)
		if !ok {
			continue
		}
		taken = append(taken, s)
		reps = append(reps, Replica{SegmentName: s.Name, TEEndpoint: s.TEEndpoint, TEProtocol: s.TEProtocol, Addr: s.Base + uint64(off), Size: size})
	}
	if len(reps) < n {
		for _, s := range taken { // roll back partial allocation
			kept := s.allocs[:0]
			for _, a := range s.allocs {
				if a.key == key {
					s.used -= a.size
					continue
				}
				kept = append(kept, a)
			}
			s.allocs = kept
		}
		m.needEviction = true
		switch m.cfg.Version.MasterAllocFailedLine {
		case mooncake.AllocFailedSlice:
			m.log.Log(mlog.Error, fmt.Sprintf("key=%s, replica_id=%d, slice_index=0, error=allocation_failed", key, len(reps)))
		case mooncake.AllocFailedAll:
			m.log.Log(mlog.Error, fmt.Sprintf("Failed to allocate all replicas for key=%s, error: NO_AVAILABLE_HANDLE", key))
		}
		return nil, mooncake.NO_AVAILABLE_HANDLE
	}
	m.objects[key] = &object{key: key, size: size, replicas: reps, putStart: now, lastTouch: now, fs: m.newFsReplica(key)}
	return reps, nil
}

// PutEnd implements Service.
func (m *Master) PutEnd(_ context.Context, key string) error {
	now := m.catchUp()
	m.metrics.putEnd++
	o, ok := m.objects[key]
	if !ok {
		m.metrics.putEndFail++
		return mooncake.OBJECT_NOT_FOUND
	}
	o.complete = true
	o.lastTouch = now
	for i := range o.replicas {
		o.replicas[i].Complete = true
	}
	m.pushOffloading(o)
	return nil
}

// PutRevoke implements Service.
func (m *Master) PutRevoke(_ context.Context, key string) error {
	m.catchUp()
	m.metrics.putRevoke++
	o, ok := m.objects[key]
	if !ok {
		m.metrics.putRevokeFail++
		return mooncake.OBJECT_NOT_FOUND
	}
	if o.complete {
		m.metrics.putRevokeFail++
		return mooncake.INVALID_WRITE
	}
	m.removeObject(o)
	return nil
}

// GetReplicaList implements Service: grants a lease. In a batch call
// (BatchPosOf) it is one key of WrappedMasterService::BatchGetReplicaList,
// which logs a key it does not find (Profile.BatchGetMissErrors).
func (m *Master) GetReplicaList(ctx context.Context, key string) ([]Replica, error) {
	now := m.catchUp()
	m.metrics.get++
	o, ok := m.objects[key]
	if !ok {
		m.metrics.getFail++
		m.batchGetMiss(ctx, key, mooncake.OBJECT_NOT_FOUND)
		return nil, mooncake.OBJECT_NOT_FOUND
	}
	if !o.complete {
		m.metrics.getFail++
		m.batchGetMiss(ctx, key, mooncake.REPLICA_IS_NOT_READY)
		return nil, mooncake.REPLICA_IS_NOT_READY
	}
	mem, disk := m.servable(o)
	if len(mem)+len(disk) == 0 && !o.fs.complete {
		// Every replica is a suspected client's (Profile.ClientLiveness).
		m.metrics.getFail++
		m.log.Log(mlog.Warning, fmt.Sprintf("key=%s, error=replica_not_ready", key))
		return nil, mooncake.REPLICA_IS_NOT_READY
	}
	o.lease = max(o.lease, now+m.cfg.DefaultKVLeaseTTL)
	o.lastTouch = now
	reps := append([]Replica(nil), mem...)
	for _, d := range disk {
		reps = append(reps, Replica{Size: d.size, Complete: true, OffloadEndpoint: d.endpoint})
	}
	reps = o.fs.place(reps, len(mem), o.size)
	for i := range reps {
		reps[i].LeaseTTL = m.cfg.DefaultKVLeaseTTL
	}
	return reps, nil
}

// batchGetMiss is BatchGetReplicaList's line for a key of a batch read
// it did not find: an ERROR up to v0.3.6.post1, VLOG(1) from v0.3.7.
func (m *Master) batchGetMiss(ctx context.Context, key string, code mooncake.ErrorCode) {
	if b, ok := BatchPosOf(ctx, key); ok && m.cfg.Version.BatchGetMissErrors {
		m.log.Log(mlog.Error, fmt.Sprintf("BatchGetReplicaList failed for key[%d] '%s': %s", b.Index, key, code.Name()))
	}
}

// Remove implements Service.
func (m *Master) Remove(_ context.Context, key string) error {
	now := m.catchUp()
	m.metrics.del++
	o, ok := m.objects[key]
	if !ok {
		m.metrics.delFail++
		return mooncake.OBJECT_NOT_FOUND
	}
	if o.lease > now {
		m.metrics.delFail++
		return mooncake.OBJECT_HAS_LEASE
	}
	if !o.complete {
		m.metrics.delFail++
		return mooncake.REPLICA_IS_NOT_READY
	}
	m.removeObject(o)
	return nil
}

// Stats is what /get_all_segments and metrics would show.
type Stats struct {
	Segments, Clients, Objects int
	Used, Capacity             int64
}

// Stats returns a snapshot.
func (m *Master) Stats() Stats {
	m.catchUp()
	used, total := m.capacity()
	return Stats{Segments: len(m.segments), Clients: len(m.okClients), Objects: len(m.objects), Used: used, Capacity: total}
}

// Objects is the number of objects (keys) the master holds, as they are.
func (m *Master) Objects() int { return len(m.objects) }

// SegmentNames lists mounted segment names in mount order (/get_all_segments).
func (m *Master) SegmentNames() []string {
	m.catchUp()
	out := make([]string, len(m.segments))
	for i, s := range m.segments {
		out[i] = s.Name
	}
	return out
}

var _ Service = (*Master)(nil)
