package sim

import (
	"context"
	"fmt"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/models/client"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/sim/kernel"
)

// HAStandbyAddr is the second master of topology master.ha (the first is
// MasterAddr).
const HAStandbyAddr = "127.0.0.1:50061"

// HA master timing: ETCD_MASTER_VIEW_LEASE_TTL (ha_helper.cpp v0.3.9,
// etcd_leader_coordinator.cpp v0.3.10+), the 5 s a new leader waits
// before it serves, and etcd clientv3's KeepAlive period (TTL/3). Real
// 0.3.9 / 0.3.13.post1: the view vanished 4.1–5.2 s after the leader's
// SIGKILL, the standby served 5.0 s after its election (REAL-FINDINGS §19).
const (
	haLeaseTTL  = 5 * time.Second
	haWarmup    = 5 * time.Second
	haKeepAlive = haLeaseTTL / 3
	// haMonitorRetry is LeaderMonitorThreadMain's kErrorRetryInterval.
	haMonitorRetry = time.Second
)

// haMaster is one mooncake_master --enable_ha=true.
type haMaster struct {
	role    string // process role and trace source: master, master-standby
	addr    string
	m       *master.Master
	alive   bool
	serving bool          // elected and warmed up: its RPC port is open
	grant   time.Duration // when its lease was granted (keepalives follow every haKeepAlive)
	serve   *kernel.Event
	// vanished: killed by process action vanish, its address drops every
	// SYN until it starts again (havanish.go).
	vanished bool
}

// haPair is the election of topology master.ha: which master holds the
// master view in etcd, when its lease runs out, and which pooled client
// connections still point at a killed master (their next call reads EOF).
type haPair struct {
	ms     [2]*haMaster
	leader int // index into ms; -1 = no view key
	expiry *kernel.Event
	eof    map[string]string // node|conn → address of the killed master
}

// startHA launches the pair at time 0: the first master has won the
// election one warmup earlier and serves; the second campaigns.
func (w *World) startHA() error {
	if w.etcd == nil {
		return fmt.Errorf("sim: master ha needs metadata etcd, not %s", w.spec.Metadata)
	}
	a := &haMaster{role: "master", addr: MasterAddr, alive: true, serving: true, grant: -haWarmup}
	a.m = w.newMaster(a.role)
	b := &haMaster{role: roleMasterStandby, addr: HAStandbyAddr, alive: true}
	w.ha = &haPair{ms: [2]*haMaster{a, b}, leader: 0, eof: map[string]string{}}
	rev := w.etcd.Put(w.profile.MasterViewKey, []byte(a.addr))
	if !w.profile.HABackend {
		w.haHelperStart(a, b, rev)
	}
	return nil
}

// haHelperStart prints what the pair's MasterServiceSupervisor::Start
// printed up to time 0 with ha_helper.cpp's election (v0.3.4 …
// v0.3.10; ha_helper.cpp v0.3.9:127-154, MasterViewHelper::ElectLeader
// :29-86): the leader found no view key and created it, waited the lease
// TTL and serves; the standby found the leader's key (its create
// revision is ViewVersionId, etcd_wrapper.go v0.3.9:213) and watches it.
// Real 0.3.7.post2 (etcd/ha-client-direct-master, 2026-12-07) printed
// these lines in this order, CurrentVersion=2 on a fresh etcd.
// From v0.3.7.post1 the helper's constructor names its key (the cluster
// id's namespace, ha_helper.cpp v0.3.7.post1:20).
func (w *World) haHelperStart(leader, standby *haMaster, rev int64) {
	campaign := func(m *haMaster) {
		w.haLog(m, mlog.Info, "Init master service...")
		w.haLog(m, mlog.Info, "Init leader election helper...")
		if w.profile.MasterViewKey != "mooncake-store/master_view" {
			w.haLog(m, mlog.Info, "Master view key: "+w.profile.MasterViewKey)
		}
		w.haLog(m, mlog.Info, "Trying to elect self as leader...")
	}
	campaign(leader)
	// EtcdHelper::Get on the missing key (etcd_helper.cpp v0.3.9:51-54,
	// the wrapper's "key not found in etcd"; real 0.3.7.post2).
	w.haLog(leader, mlog.Error, "key="+w.profile.MasterViewKey+", error=key not found in etcd")
	w.haLog(leader, mlog.Info, "No leader found, trying to elect self as leader")
	w.haLog(leader, mlog.Info, "Successfully elected self as leader")
	w.haLog(leader, mlog.Info, "Starting master service...")
	campaign(standby)
	w.haLog(standby, mlog.Info, fmt.Sprintf("CurrentLeader=%s, CurrentVersion=%d", leader.addr, rev))
	w.haLog(standby, mlog.Info, "Waiting for leadership change...")
}

// roleMasterStandby is the second master's role, as on the real engine.
const roleMasterStandby = "master-standby"

func (w *World) newMaster(source string) *master.Master {
	cfg := w.masterCfg
	cfg.EnableHA = true // realengine/hamaster.go starts both with --enable_ha=true
	return master.New(cfg, w.k, mlog.Trace{T: w.tr, Source: source}, w.k.Stream(fmt.Sprintf("%s#%d", source, w.k.Fired())))
}

func (w *World) haLog(m *haMaster, level, text string) {
	mlog.Trace{T: w.tr, Source: m.role}.Log(level, text)
}

// at resolves a master address: a master that does not serve has no open
// RPC port (refused).
func (h *haPair) at(addr string) (procState, *master.Master) {
	for _, m := range h.ms {
		if sameAddr(addr, m.addr) && m.alive && m.serving {
			return running, m.m
		}
	}
	return stopped, nil
}

// takeEOF reports (once) that the pooled connection conn of node points at
// a master killed since.
func (h *haPair) takeEOF(node, conn, addr string) bool {
	k := node + "|" + conn
	if a, ok := h.eof[k]; ok && sameAddr(a, addr) {
		delete(h.eof, k)
		return true
	}
	return false
}

// haIndex is the master a process target names: master = the first,
// master-leader = the current leader (-1 when none).
func (w *World) haIndex(target string) int {
	if target == faults.TargetMasterLeader {
		return w.ha.leader
	}
	return 0
}

// haCheck: SIGSTOP of an HA master (a frozen leader whose lease runs out
// and wakes up believing it leads) is not modelled.
func (w *World) haCheck(p faults.ProcessPrimitive) error {
	if w.ha == nil || (p.Target != "master" && p.Target != faults.TargetMasterLeader) {
		return nil
	}
	if p.Action == "pause" || p.Action == "resume" {
		return engine.Unsupportedf("sim: %s on an HA master is not modelled (stop, start, restart are)", p.Action)
	}
	return nil
}

// vanishCheck: vanish is modelled for an HA master only.
func (w *World) vanishCheck(p faults.ProcessPrimitive) error {
	if p.Action == faults.Vanish && w.ha == nil {
		return engine.Unsupportedf("sim: %s: modelled for an HA master only (topology master.ha)", p.Fault)
	}
	return nil
}

// haProcess performs a process action on master i (-1: nothing).
func (w *World) haProcess(i int, action string) {
	if i < 0 {
		return
	}
	switch action {
	case "stop":
		w.haKill(i)
	case "start":
		w.haStart(i)
	case "restart":
		w.haKill(i)
		w.haStart(i)
	case faults.Vanish:
		w.haVanish(i)
	}
}

// haKill is SIGKILL: pooled connections to it read EOF next; if it led,
// its lease expires after the last keepalive plus the TTL.
func (w *World) haKill(i int) {
	m := w.ha.ms[i]
	if !m.alive {
		return
	}
	m.alive, m.serving = false, false
	if m.serve != nil {
		m.serve.Cancel()
		m.serve = nil
	}
	for _, b := range w.beats {
		if b.rc != nil && b.rc.HA() && sameAddr(b.rc.MasterAddr(), m.addr) {
			node := b.rc.Node()
			w.ha.eof[node+"|ping"] = m.addr
			w.ha.eof[node+"|"] = m.addr
		}
	}
	if w.ha.leader != i {
		return
	}
	now := w.k.Now()
	last := m.grant + (now-m.grant)/haKeepAlive*haKeepAlive
	w.ha.expiry = w.k.At(last+haLeaseTTL, "ha lease expiry", w.haLeaseExpired)
}

// haStart starts master i again: it campaigns, and wins if no view exists.
func (w *World) haStart(i int) {
	m := w.ha.ms[i]
	if m.alive {
		return
	}
	m.alive, m.vanished = true, false
	if w.ha.leader < 0 && w.ha.expiry == nil {
		w.haElect(i)
	}
}

// haLeaseExpired: etcd drops the view key; the live standby (v0.3.9
// watching it, v0.3.10+ reading it) elects itself at once.
func (w *World) haLeaseExpired() {
	w.ha.expiry = nil
	w.ha.leader = -1
	w.etcd.Delete(w.profile.MasterViewKey)
	missing := fmt.Sprintf("key=%s, error=key not found in etcd", w.profile.MasterViewKey)
	for _, m := range w.ha.ms {
		if m.alive && w.profile.HABackend {
			w.haLog(m, mlog.Error, missing)
		}
	}
	if w.profile.HABackend {
		for _, b := range w.beats {
			if b.rc != nil && b.rc.HA() {
				b.rc.ViewDeleted()
			}
		}
	}
	for i, m := range w.ha.ms {
		if m.alive {
			w.haElect(i)
			return
		}
	}
}

// haElect makes master i leader: it writes the view under a new lease,
// warms up, then serves with an empty store (the old leader's objects and
// clients are gone: clients remount on their next ping).
func (w *World) haElect(i int) {
	m := w.ha.ms[i]
	w.ha.leader = i
	m.grant = w.k.Now()
	if w.profile.HAWarmingView {
		// The key is taken, its value no address until the leader serves.
		w.etcd.Put(w.profile.MasterViewKey, []byte(client.HAWarmingPrefix+fmt.Sprint(int64(m.grant))))
	} else {
		w.etcd.Put(w.profile.MasterViewKey, []byte(m.addr))
	}
	if w.profile.HABackend {
		w.haLog(m, mlog.Info, "Entering warmup phase...")
		if w.profile.HARuntimeState {
			w.haLog(m, mlog.Info, "Master runtime state -> leader_warmup, role=leader")
		}
	} else {
		w.haLog(m, mlog.Info, "Successfully elected self as leader")
	}
	m.serve = w.k.After(haWarmup, "ha serve", func() {
		m.serve = nil
		m.m, m.serving = w.newMaster(m.role), true
		if w.profile.HABackend {
			w.haLog(m, mlog.Info, "Starting serve phase...")
			if w.profile.HARuntimeState {
				w.haLog(m, mlog.Info, "Master runtime state -> serving, role=leader")
			}
		} else {
			w.haLog(m, mlog.Info, "Starting master service...")
		}
		if w.profile.HAWarmingView {
			// Published once it serves: the leader monitors see it now.
			w.etcd.Put(w.profile.MasterViewKey, []byte(m.addr))
			w.haMonitors(m.addr)
		}
	})
	if w.profile.HABackend && !w.profile.HAWarmingView {
		w.haMonitors(m.addr)
	}
}

// haMonitors: every HA client's leader monitor sees addr in the view.
func (w *World) haMonitors(addr string) {
	for _, b := range w.beats {
		if b.rc != nil && b.rc.HA() {
			w.haMonitor(b, addr)
		}
	}
}

// haMonitor is one client's LeaderMonitorThreadMain (v0.3.10+) reacting
// to a new view: SwitchLeader, and after a failure (the new leader still
// warming up) "Failed to switch to leader" and another try 1 s later while
// the view still names addr.
func (w *World) haMonitor(b *heartbeat, addr string) {
	if w.closed || !b.rc.HA() || w.ha.leader < 0 || !sameAddr(w.ha.ms[w.ha.leader].addr, addr) {
		return
	}
	dc := &detachedClock{base: w.k.Now}
	stub := masterTransport{w: w, from: b.rc.Node(), clock: dc, conn: "monitor"}.Master(addr, b.rc.Timeouts())
	err := b.rc.SwitchLeader(context.Background(), addr, stub)
	if err == nil {
		return
	}
	w.k.After(dc.elapsed, "leader monitor", func() {
		b.rc.SwitchFailed(addr, err)
		w.k.After(haMonitorRetry, "leader monitor", func() { w.haMonitor(b, addr) })
	})
}
