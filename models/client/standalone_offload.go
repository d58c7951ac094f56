package client

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// DummyClientLiveTTL is dummy_client_live_ttl_sec_, mooncake_client's
// DEFAULT_CLIENT_LIVE_TTL_SEC (types.h: 10 s; a constant, no flag sets
// it): a dummy whose pings the client has not served for that long is
// expired by the dummy-client monitor and its shm unmapped.
const DummyClientLiveTTL = 10 * time.Second

// dummyLiveness is what mooncake_client's dummy-client monitor thread
// knows (real_client.cpp v0.3.9:2108-2146, dummy_client_monitor_func):
// each dummy's last ping that the RPC server's IO thread served, checked
// once a second (kDummyClientMonitorSleepMs).
type dummyLiveness struct {
	last map[string]time.Duration
	// stalledAt: the clock's stalls at each dummy's last ping (fake: the
	// harness not scheduled is no Mooncake event, as for the master's
	// client_ttl; master.StallClock).
	stalledAt map[string]time.Duration
	// busyUntil: the server's one IO thread (--threads 1) is held by a
	// handler until then; the pings that arrive meanwhile (held) are
	// served when it returns.
	busyUntil time.Duration
	held      []string
	// tail: the lines a handler logs after its caller gave up, written at
	// the process's next event (real: the handler's own timeout fires a
	// fraction of a millisecond after its caller's).
	tail []tailLine
}

type tailLine struct{ level, text string }

// offload reports --enable_offload.
func (s StandaloneSpec) offload() bool {
	on, _ := strconv.ParseBool(s.Flags["enable_offload"])
	return on
}

// startMonitor starts the dummy-client monitor (start_dummy_client_monitor,
// every release with dummy clients) on the process's once-a-second beat.
func (s *Standalone) startMonitor() {
	s.live.last, s.live.stalledAt = map[string]time.Duration{}, map[string]time.Duration{}
	s.onBeat = s.monitor
	if s.fs != nil && s.p.StandaloneOffloadBlocksIO {
		s.selfOffloadRead = s.blockedOffloadRead
	}
}

// pinged is RealClient::ping's push to the monitor's queue, once the IO
// thread serves it.
func (s *Standalone) pinged(dummy string) {
	s.flushTail()
	if s.d.Clock.Now() < s.live.busyUntil {
		if !slices.Contains(s.live.held, dummy) {
			s.live.held = append(s.live.held, dummy)
		}
		return
	}
	s.live.last[dummy], s.live.stalledAt[dummy] = s.d.Clock.Now(), s.stalled()
}

// stalled is the clock's stalls so far (0 but on fake).
func (s *Standalone) stalled() time.Duration {
	if c, ok := s.d.Clock.(master.StallClock); ok {
		return c.Stalled()
	}
	return 0
}

// monitor is one check of dummy_client_monitor_func: each dummy whose
// last served ping is older than the TTL is expired ("action=
// client_expired", INFO) and its shm unmapped (unmap_shm_internal: its
// registrations gone, later calls "error=shm_not_mapped"). A ping served
// later tracks it again; nothing maps its shm again unless the dummy's
// own ping fails and it re-registers.
func (s *Standalone) monitor(ctx context.Context) {
	if s.closed || s.died != nil {
		return
	}
	s.flushTail()
	now, stalled := s.d.Clock.Now(), s.stalled()
	for _, id := range slices.Sorted(maps.Keys(s.live.last)) {
		if s.live.last[id]+DummyClientLiveTTL+stalled-s.live.stalledAt[id] >= now {
			continue
		}
		s.logf(mlog.Info, "client_id=%s, action=client_expired", id)
		delete(s.live.last, id)
		delete(s.live.stalledAt, id)
		if st := s.dummies[id]; st != nil {
			for _, m := range st.maps {
				s.te.UnregisterLocalMemory(ctx, m.realBase)
			}
			delete(s.dummies, id)
		}
	}
}

// blockedOffloadRead is a dummy's read of a key this mooncake_client
// offloaded, up to v0.3.10.post2 (Profile.StandaloneOffloadBlocksIO):
// batch_get_into_dummy_helper runs batch_get_into_internal on the RPC
// server's one IO thread, whose batch_get_into_offload_object_internal
// calls batch_get_offload_object at local_rpc_addr, that same server,
// with syncAwait. Nothing serves the request (nor the dummies' pings)
// until coro_rpc's 30 s request timeout gives up (real 0.3.9,
// 0.3.10.post1: "Time taken for batch_get_into: 30001318us", the dummy
// expired 10 s in). The dummy's own 30 s deadline ran out first.
func (s *Standalone) blockedOffloadRead(ctx context.Context, key string, r master.Replica) (hostmem.Content, mooncake.ErrorCode) {
	s.live.busyUntil = s.d.Clock.Now() + DefaultTimeouts.Request
	err := s.d.Clock.Sleep(ctx, DefaultTimeouts.Request)
	s.live.busyUntil = 0
	for _, d := range s.live.held {
		s.live.last[d], s.live.stalledAt[d] = s.d.Clock.Now(), s.stalled()
	}
	s.live.held = nil
	if err != nil {
		return hostmem.Content{}, mooncake.INTERNAL_ERROR
	}
	// ClientRequester::invoke_rpc, batch_get_offload_object's caller,
	// batch_get_into_internal (real_client.cpp v0.3.9:2448, :2423,
	// :2375, :1789), after the dummy's "Batch RPC call failed" (real
	// 0.3.9: 0.2 ms later).
	for _, l := range []string{
		"RPC call failed: Connection timed out",
		fmt.Sprintf("Failed to invoke batch_get_offload_object, client_addr = %s, error is: %s", r.OffloadEndpoint, mooncake.RPC_FAIL.Name()),
		"Batch get offload object failed with error: " + mooncake.RPC_FAIL.Name(),
		"Batch get store object failed with error: " + mooncake.RPC_FAIL.Name(),
	} {
		s.live.tail = append(s.live.tail, tailLine{mlog.Error, l})
	}
	return hostmem.Content{}, mooncake.RPC_FAIL
}

// flushTail writes the lines a handler left for after its caller's.
func (s *Standalone) flushTail() {
	for _, l := range s.live.tail {
		s.logf(l.level, "%s", l.text)
	}
	s.live.tail = nil
}

// timingLine counts one key of a dummy's batch_get_into and, at its last
// key, prints batch_get_into_internal's INFO line (real_client.cpp
// v0.3.9:1807 … v0.3.11.post1; commented out from v0.3.12) unless no key
// had a replica (its early return): the keys read from memory and from
// SSD (a DISK replica read through a temporary buffer in neither:
// fsreplica.go), the batch's time and its SSD part. After a blocked read it follows
// the handler's other late lines. Only where the dummy's context reaches
// the model (sim; fake's wire drops it: no line).
func (s *Standalone) timingLine(bt *batchTiming, start time.Duration, disk, temp bool, code mooncake.ErrorCode) {
	if bt.done == 0 {
		bt.start = start
	}
	bt.done++
	switch {
	case disk:
		bt.disk++
		bt.store += s.d.Clock.Now() - start
	case temp:
		// A DISK replica through a temporary buffer: in neither count.
		bt.temp++
	case code == mooncake.OK || code == mooncake.TRANSFER_FAIL:
		bt.mem++
	}
	if !s.p.BatchGetTimingLine || bt.done < bt.keys || bt.mem+bt.disk+bt.temp == 0 {
		return
	}
	line := fmt.Sprintf("Time taken for batch_get_into: %dus, read store: %dus, with memory key count: %d, offload key count: %d",
		(s.d.Clock.Now() - bt.start).Microseconds(), bt.store.Microseconds(), bt.mem, bt.disk)
	if len(s.live.tail) > 0 {
		s.live.tail = append(s.live.tail, tailLine{mlog.Info, line})
		return
	}
	s.logf(mlog.Info, "%s", line)
}
