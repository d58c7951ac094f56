package master

import (
	"maps"
	"slices"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/mlog"
)

// The master's offloading tasks (offloading_tasks, from v0.3.10): PutEnd
// records one for each key it queues for a client's FileStorage, with the
// time, and pins the key's memory replica; NotifyOffloadSuccess (a written
// bucket, or from 0.3.12 the NACK of a key drained and not written) erases
// it and unpins the replica. A task nobody reports is reaped by
// DiscardExpiredProcessingReplicas once put_start_release_timeout_sec has
// passed since it started: "Offloading task expired for key: <key>"
// (WARNING; master_service.cpp v0.3.10:1896, v0.3.10.post2:2379,
// v0.3.11.post1:3345; from v0.3.12 with " tenant=<tenant>", v0.3.12.post1
// :5836), and the replica is unpinned (Mooncake#2632).
//
// The reaper runs in the eviction thread: inside every BatchEvict, and
// when no eviction ran for put_start_release_timeout_sec, on its own
// (master_service.cpp v0.3.11.post1:3170-3201, v0.3.12.post1 the same): a
// task is reaped between its expiry and one timeout later.

// startOffloadTask records key's task at its first push (emplace: a task
// already there keeps its start).
func (m *Master) startOffloadTask(key string, now time.Duration) {
	if !m.cfg.Version.OffloadQueuePins {
		return // v0.3.9: no tasks, the queued replica is not pinned
	}
	if m.offloadTasks == nil {
		m.offloadTasks = map[string]time.Duration{}
	}
	if _, ok := m.offloadTasks[key]; !ok {
		m.offloadTasks[key] = now
	}
}

// endOffloadTask is NotifyOffloadSuccess's and EraseMetadata's cleanup.
func (m *Master) endOffloadTask(key string) { delete(m.offloadTasks, key) }

// eraseOffloadTask is what erasing an object's metadata does to its task:
// from v0.3.12 EraseMetadata erases it (master_service.cpp v0.3.12
// EraseMetadata, "Clean up offloading_task + dec_refcnt before erasing
// metadata"); up to v0.3.11.post1 Remove and eviction erase the metadata
// only (accessor.Erase), and the task is left to the reaper.
func (m *Master) eraseOffloadTask(key string) {
	if m.cfg.Version.EraseDropsOffloadTask {
		m.endOffloadTask(key)
	}
	if !m.cfg.Version.EraseDropsQueuedKey {
		return
	}
	for id, q := range m.offloading {
		m.offloading[id] = slices.DeleteFunc(q, func(o OffloadObject) bool { return o.Key == key })
	}
}

// discardUntil is the eviction thread's reaper when no eviction ran:
// passes one timeout apart (the 10 ms tick after it) up to now.
func (m *Master) discardUntil(now time.Duration) {
	ttl := m.cfg.PutStartReleaseTimeout
	if ttl <= 0 {
		return
	}
	for now-m.lastDiscard > ttl {
		at := m.lastDiscard + ttl + EvictionPeriod
		if at > now {
			break
		}
		m.discardExpired(at)
	}
}

// discardExpired is DiscardExpiredProcessingReplicas's part 3 at at: each
// task started a timeout or more before is reaped (by key here; real by
// its shards' and hash order).
func (m *Master) discardExpired(at time.Duration) {
	m.lastDiscard = at
	for _, key := range slices.Sorted(maps.Keys(m.offloadTasks)) {
		if m.offloadTasks[key]+m.cfg.PutStartReleaseTimeout > at {
			continue
		}
		if o, ok := m.objects[key]; ok {
			o.offloadPin = false // source->dec_refcnt()
		}
		line := "Offloading task expired for key: " + key
		if m.cfg.Version.OffloadTaskTenant {
			line += " tenant=" + defaultTenant
		}
		m.log.Log(mlog.Warning, line)
		delete(m.offloadTasks, key)
	}
}

// defaultTenant is TenantId::kDefaultValue (tenant_id.h v0.3.12.post1:14):
// every key of a master without --enable_multi_tenants.
const defaultTenant = "default"

// OffloadTasks is the keys with an offloading task, for tests.
func (m *Master) OffloadTasks() []string {
	return slices.Sorted(maps.Keys(m.offloadTasks))
}
