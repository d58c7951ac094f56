package master

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/mlog"
)

// The client liveness registry of the 0.3.14 master (Profile.ClientLiveness;
// no tag to read: the wheel's strings and real runs, docs/REAL-FINDINGS.md
// §65). A client is ACTIVE while it pings; SUSPECTED once client_ttl passed
// without a liveness observation (its segments stay mounted, its replicas
// are not served and take no puts); a ping brings it back with its data;
// OFFLINE client_suspicion_ttl after it became suspected, when the
// offboarding worker unmounts its segments and drops its disk replicas.

// suspicion is when a client became suspected, and the clock's stalls then
// (StallClock: a pause of the harness extends the window as it does
// client_ttl).
type suspicion struct {
	since, stalled time.Duration
}

// sortedClients is ids in a fixed order: real walks a hash map, the model
// must not let map order decide the order of its lines.
func sortedClients(ids []UUID) []UUID {
	slices.SortFunc(ids, func(a, b UUID) int { return cmp.Or(cmp.Compare(a.Hi, b.Hi), cmp.Compare(a.Lo, b.Lo)) })
	return ids
}

// monitorLiveness runs the registry monitor's ticks (every
// ClientMonitorPeriod) up to the tick at: ACTIVE → SUSPECTED at the first
// tick with now - last observation >= client_ttl, SUSPECTED → OFFLINE at
// the first tick with now - suspected since >= client_suspicion_ttl (real:
// ClientLivenessRecord::EvaluateAndRetire's >=; suspected 10 s and
// offline 20 s later with the defaults). The model evaluates lazily, at
// the next RPC: each transition is dated by the tick it happened at, so
// both can fall between two RPCs.
func (m *Master) monitorLiveness(at time.Duration) {
	for _, id := range sortedClients(slices.Collect(maps.Keys(m.clientTTL))) {
		s, ok := m.suspected[id]
		if !ok {
			due := m.clientTTL[id] + m.stalled() - m.pingStalled[id]
			if due > at {
				continue
			}
			s = suspicion{since: tickAtOrAfter(due, at), stalled: m.stalled()}
			m.suspected[id] = s
			m.log.Log(mlog.Info, fmt.Sprintf("client_id=%s, action=client_liveness_suspected", id))
		}
		if s.since+m.cfg.ClientSuspicionTTL+(m.stalled()-s.stalled) <= at {
			m.offboard(id)
		}
	}
}

// tickAtOrAfter is the first monitor tick at or after t, the ticks being
// at, at - ClientMonitorPeriod, … (t <= at).
func tickAtOrAfter(t, at time.Duration) time.Duration {
	return at - (at-t)/ClientMonitorPeriod*ClientMonitorPeriod
}

// offboard is the OFFLINE transition and its offboarding job, in the
// order real printed them in two runs of three (the job runs on its own
// worker thread: once its two lines came before the offline line).
// duration_ms is the job's wall time: 0 for memory segments, about 200
// on real with SSD offload's disk replicas to drop.
func (m *Master) offboard(id UUID) {
	m.log.Log(mlog.Info, fmt.Sprintf("client_id=%s, action=client_liveness_offline", id))
	delete(m.suspected, id)
	delete(m.clientTTL, id)
	delete(m.pingStalled, id)
	delete(m.okClients, id)
	for _, s := range slices.Clone(m.segments) {
		if s.client != id {
			continue
		}
		m.unmount(s)
		m.log.Log(mlog.Info, fmt.Sprintf("client_id=%s, segment_name=%s, action=unmount_offline_mem_segment", id, s.Name))
	}
	// UnmountLocalDiskSegment without a line of its own.
	m.dropLocalDisk(id)
	m.offboarded[id] = true
	m.log.Log(mlog.Info, fmt.Sprintf("client_id=%s, action=client_offboarding_complete, retries=0, duration_ms=0", id))
}

// observe is a liveness observation of a suspected client (a ping, a
// mount): it is ACTIVE again, its replicas served again. The signals
// are the wheel's ("signal=ping" seen on real; memory_mount its string).
func (m *Master) observe(id UUID, signal string) {
	if _, ok := m.suspected[id]; !ok {
		return
	}
	delete(m.suspected, id)
	m.log.Log(mlog.Info, fmt.Sprintf("client_id=%s, action=client_liveness_recovered, signal=%s", id, signal))
}

// servable is what of o the master serves: with the liveness registry,
// not the replicas of suspected clients (real 0.3.14: a read of them is
// REPLICA_IS_NOT_READY, is_exist 0, until the client recovers or goes).
func (m *Master) servable(o *object) ([]Replica, []diskReplica) {
	if len(m.suspected) == 0 {
		return o.replicas, o.disk
	}
	var reps []Replica
	for _, r := range o.replicas {
		if !m.suspectedReplica(o.key, r) {
			reps = append(reps, r)
		}
	}
	var disk []diskReplica
	for _, d := range o.disk {
		if _, ok := m.suspected[d.client]; !ok {
			disk = append(disk, d)
		}
	}
	return reps, disk
}

// suspectedReplica: the replica lies in a suspected client's segment. The
// segment is the one that holds the replica's allocation, not the first of
// its name: a process restarted with a fixed local_hostname mounts a segment
// of the old one's name while the old one is still mounted, and real 0.3.14
// serves the new process's own puts (is_exist 1; explore seed 20276663,
// docs/REAL-FINDINGS.md §101).
func (m *Master) suspectedReplica(key string, r Replica) bool {
	for _, s := range m.segments {
		if s.Name == r.SegmentName && s.holds(key, r.Addr) {
			_, ok := m.suspected[s.client]
			return ok
		}
	}
	return false
}

// holds: the segment has key's allocation at addr.
func (s *segment) holds(key string, addr uint64) bool {
	for _, a := range s.allocs {
		if a.key == key && s.Base+uint64(a.off) == addr {
			return true
		}
	}
	return false
}
