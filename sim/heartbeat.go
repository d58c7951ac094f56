package sim

import (
	"context"
	"errors"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/client"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/sim/kernel"
	"github.com/mooncake-faultlab/faultlab/trace"
)

// heartbeat drives one client's ping thread as kernel events.
type heartbeat struct {
	rc *client.RealClient
	dc *client.DummyClient
	ev *kernel.Event
	// stopping is ping_running_ = false: the iteration under way finishes,
	// the next one does not start.
	stopping bool
	// stopNext: ~Client is joining the task-poll thread, which wakes with
	// this one; the ping thread begins its next iteration before the
	// destructor clears its flag (mooncake.Profile.DestructorJoinsTaskPoll).
	stopNext bool
	// joinFrom: when that join began. taskCheck: when the task-poll thread,
	// whose FetchTasks failed with this iteration's ping, next checks its
	// flag (a sleep later) while this thread reconnects (set: taskChecks).
	joinFrom   time.Duration
	taskCheck  time.Duration
	taskChecks bool
	// remount: the steps of a remount_segment thread the last ping
	// started (client.Deps.Remount); remountEv its next step.
	remount   []client.RemountStep
	remountEv *kernel.Event
	// mem is the address space of the process the thread runs in; held:
	// an iteration came due while that process was stopped (frozen).
	mem  *hostmem.Space
	held bool
}

// watch schedules heartbeats for a client whose ping thread runs in the
// process whose address space is mem.
func (w *World) watch(rc *client.RealClient, dc *client.DummyClient, mem *hostmem.Space) {
	for _, b := range w.beats {
		if (rc != nil && b.rc == rc) || (dc != nil && b.dc == dc) {
			w.reschedule(b)
			return
		}
	}
	b := &heartbeat{rc: rc, dc: dc, mem: mem}
	w.beats = append(w.beats, b)
	w.reschedule(b)
}

func (w *World) reschedule(b *heartbeat) {
	if b.ev != nil || w.closed {
		return
	}
	b.stopping, b.stopNext = false, false
	switch {
	case b.rc != nil && b.rc.Pinging():
		// The ping thread pings at once when it starts.
		b.ev = w.k.After(0, "heartbeat", func() { w.beat(b) })
	case b.dc != nil && b.dc.Pinging():
		// ping_thread_main pings first, then sleeps (dummy_client.cpp).
		b.ev = w.k.After(0, "dummy heartbeat", func() { w.beat(b) })
	}
}

func (w *World) beat(b *heartbeat) {
	b.ev = nil
	if b.stopping {
		return // the loop sees ping_running_ = false and the thread exits
	}
	if w.frozen(b) {
		b.held = true // SIGSTOP: SIGCONT runs this iteration (thaw)
		return
	}
	if b.stopNext {
		b.stopNext, b.stopping = false, true
		// The task-poll thread left during this thread's reconnect: the
		// destructor cleared our flag before this check (real 0.3.11.post1,
		// seed 2031: a close during the third ping ends after its reconnect).
		if b.taskChecks && b.taskCheck >= b.joinFrom && b.taskCheck < w.k.Now() {
			return
		}
	}
	b.taskChecks = false
	ctx := context.Background()
	if b.rc != nil {
		if !b.rc.Pinging() {
			return
		}
		dc := &detachedClock{base: w.k.Now}
		if b.rc.ReconnectPending() {
			wait := b.rc.Reconnect(ctx, metadataEtcd{w: w, from: b.rc.Node(), clock: dc}, w.pingDial(b.rc, dc))
			b.ev = w.k.After(dc.elapsed+wait, "heartbeat", func() { w.beat(b) })
			return
		}
		b.rc.JoinRemount()
		poolOf(b.rc).taskTick()
		stub := w.heartbeatStub(b.rc, dc)
		resp, err := stub.Ping(ctx, b.rc.ID())
		if dc.elapsed > 0 && isRefused(err) {
			// A refused ping reconnects (refusedConnects): the master may
			// be back at one of its later connects.
			w.pingReconnect(b, w.k.Now(), dc.elapsed, 1, resp, err)
			return
		}
		w.pingOutcome(b, stub, dc, resp, err)
		return
	}
	if !b.dc.Pinging() {
		return
	}
	b.dc.Heartbeat(ctx)
	b.ev = w.k.After(client.PingInterval, "dummy heartbeat", func() { w.beat(b) })
}

// pingDial gives the ping thread's master stubs: its own pooled
// connection ("ping"), waits going to dc so the foreground does not block.
func (w *World) pingDial(rc *client.RealClient, dc *detachedClock) func(addr string) master.Service {
	return func(addr string) master.Service {
		return masterTransport{w: w, from: rc.Node(), clock: dc, conn: "ping", pool: poolOf(rc)}.Master(addr, rc.Timeouts())
	}
}

// poolOf is rc's client pool to the master (nil when not this world's).
func poolOf(rc *client.RealClient) *masterPool {
	mt, _ := rc.Transport().(masterTransport)
	return mt.pool
}

// heartbeatStub is the ping thread's stub for the master it pings.
func (w *World) heartbeatStub(rc *client.RealClient, dc *detachedClock) master.Service {
	return w.pingDial(rc, dc)(rc.MasterAddr())
}

// pingOutcome finishes a ping whose RPC is under way: a failed ping is
// known when its RPC gives up, not when it is sent; until then
// is_ping_healthy() keeps its last value (real 0.3.12.post1, master
// blackholed: healthy until the 30 s request timeout).
func (w *World) pingOutcome(b *heartbeat, stub master.Service, dc *detachedClock, resp master.PingResponse, err error) {
	if err == nil || dc.elapsed == 0 {
		w.pingDone(b, stub, dc, resp, err)
		return
	}
	b.ev = w.k.After(dc.elapsed, "heartbeat ping outcome", func() {
		b.ev = nil
		if !b.rc.Pinging() {
			return
		}
		dc := &detachedClock{base: w.k.Now}
		w.pingDone(b, w.heartbeatStub(b.rc, dc), dc, resp, err)
	})
}

// pingReconnect is the refused ping's reconnect (refusedConnects) on the
// ping thread, whose waits do not move the world: its later connects are
// events (poolConnects).
func (w *World) pingReconnect(b *heartbeat, start, cost time.Duration, i int, resp master.PingResponse, err error) {
	w.connectEvents(b, start, cost, i, func(dc *detachedClock) bool {
		stub := w.heartbeatStub(b.rc, dc)
		r, again := stub.Ping(context.Background(), b.rc.ID())
		if isRefused(again) {
			return true
		}
		w.pingOutcome(b, stub, dc, r, again)
		return false
	}, func(dc *detachedClock) {
		w.pingDone(b, w.heartbeatStub(b.rc, dc), dc, resp, err)
	})
}

// connectEvents runs a refused call of the ping thread's i-th later
// connect, poolConnectGap after the previous one (start: the call's first):
// retry makes the call again on a fresh detached clock and reports whether
// it was refused again (otherwise it finished the iteration); after the
// last connect, at start + cost, fail finishes it with the refusal. A
// master reachable at one of those connects answers from there (real
// 0.3.8.post1, seed 184: the ping whose connect came 0.3 s after the
// master was back succeeded and the client remounted); one back only after
// the last does not (real seed 21: the ping failed 0.4 s after the clear).
func (w *World) connectEvents(b *heartbeat, start, cost time.Duration, i int, retry func(*detachedClock) bool, fail func(*detachedClock)) {
	at := start + time.Duration(i)*poolConnectGap
	final := i >= poolConnects || at >= start+cost
	if final {
		at = start + cost
	}
	b.ev = w.k.After(at-w.k.Now(), "heartbeat pool connect", func() {
		b.ev = nil
		if !b.rc.Pinging() {
			return
		}
		dc := &detachedClock{base: w.k.Now}
		if final {
			fail(dc)
			return
		}
		if retry(dc) {
			w.connectEvents(b, start, cost, i+1, retry, fail)
		}
	})
}

func isRefused(err error) bool {
	var rerr *master.RPCError
	return err != nil && errors.As(err, &rerr) && rerr.Kind == master.Refused
}

// pingDone finishes a ping-thread iteration whose ping outcome is known
// and schedules the next one after the thread's waits.
//
// A failed ping that reconnects (non-HA) runs the reconnect's ServiceReady
// here: a refused one is re-checked at the pool's later connects, as a
// refused ping is (connectEvents).
func (w *World) pingDone(b *heartbeat, stub master.Service, dc *detachedClock, resp master.PingResponse, err error) {
	ctx := context.Background()
	if err == nil || !b.rc.ReconnectPendingNonHA() {
		// A retried re-publication waits on the ping thread's clock; its
		// lines come when its calls return.
		var wait time.Duration
		lines := w.takeLines(b.rc, func() { wait = b.rc.PingDone(onThread(ctx, dc), stub, resp, err) })
		w.replayLines(b.rc, dc.elapsed, lines)
		w.startRemount(b, dc.elapsed)
		b.ev = w.k.After(dc.elapsed+wait, "heartbeat", func() { w.beat(b) })
		return
	}
	b.rc.PingCounted(err)
	start := dc.elapsed
	b.taskCheck, b.taskChecks = w.k.Now()+start+client.PingInterval, true
	v, rerr := stub.ServiceReady(ctx)
	if !isRefused(rerr) || dc.elapsed == start {
		wait := b.rc.ReconnectDone(v, rerr)
		b.ev = w.k.After(dc.elapsed+wait, "heartbeat", func() { w.beat(b) })
		return
	}
	w.connectEvents(b, w.k.Now()+start, dc.elapsed-start, 1, func(dc *detachedClock) bool {
		v, again := w.heartbeatStub(b.rc, dc).ServiceReady(ctx)
		if isRefused(again) {
			return true
		}
		wait := b.rc.ReconnectDone(v, again)
		b.ev = w.k.After(dc.elapsed+wait, "heartbeat", func() { w.beat(b) })
		return false
	}, func(*detachedClock) {
		wait := b.rc.ReconnectDone("", rerr)
		b.ev = w.k.After(wait, "heartbeat", func() { w.beat(b) })
	})
}

// remountOn implements client.Deps.Remount: the steps start when the ping
// that asked for them has its answer (pingDone → startRemount).
func (w *World) remountOn(rc *client.RealClient, steps []client.RemountStep) {
	for _, b := range w.beats {
		if b.rc == rc {
			b.remount = steps
			return
		}
	}
	rc.RemountDone()
}

// startRemount runs b's pending remount thread from after (the ping's own
// time) on: each step on a detached clock at its own time, so the ping
// thread and the foreground go on while it waits (std::async).
func (w *World) startRemount(b *heartbeat, after time.Duration) {
	steps := b.remount
	if steps == nil {
		return
	}
	b.remount = nil
	var step func(i int)
	step = func(i int) {
		b.remountEv = nil
		if i == len(steps) || w.closed || !b.rc.Pinging() {
			b.rc.RemountDone()
			return
		}
		dc := &detachedClock{base: w.k.Now}
		lines := w.takeLines(b.rc, func() { steps[i](onThread(context.Background(), dc), w.heartbeatStub(b.rc, dc)) })
		b.remountEv = w.k.After(dc.elapsed, "remount", func() {
			if b.rc.Pinging() {
				w.tr.Replay(lines)
			}
			step(i + 1)
		})
	}
	b.remountEv = w.k.After(after, "remount", func() { step(0) })
}

// takeLines runs f, one blocking stretch of a background thread on a
// detached clock, and takes rc's log lines it made out of the trace: real
// prints them when the calls return, after the stretch.
func (w *World) takeLines(rc *client.RealClient, f func()) []trace.Event {
	src, ok := rc.Logger().(mlog.Trace)
	if !ok || src.T != w.tr {
		f()
		return nil
	}
	mark := w.tr.Len()
	f()
	return w.tr.Take(mark, src.Source)
}

// replayLines prints taken lines after d, unless the process is gone by
// then (real: a retry whose curl timeout outlasts the process prints
// nothing).
func (w *World) replayLines(rc *client.RealClient, d time.Duration, lines []trace.Event) {
	if len(lines) == 0 {
		return
	}
	if d == 0 {
		w.tr.Replay(lines)
		return
	}
	w.k.After(d, "ping thread lines", func() {
		if rc.Pinging() {
			w.tr.Replay(lines)
		}
	})
}

// waitMountLock implements client.Deps.WaitMountLock: the foreground
// waits until rc's remount thread releases mounted_segments_mutex_.
func (w *World) waitMountLock(ctx context.Context, rc *client.RealClient) error {
	for _, b := range w.beats {
		if b.rc != rc {
			continue
		}
		for b.remountEv != nil {
			if err := w.Clock().Sleep(ctx, max(0, b.remountEv.At-w.k.Now())); err != nil {
				return err
			}
		}
	}
	return nil
}

// joinPing implements client.Deps.JoinPing: the foreground waits while rc's
// ping thread runs its pending iteration (its events fire as time passes);
// from 0.3.10.post1 also the next one, begun while ~Client joined the
// task-poll thread, which wakes with it (real 0.3.12.post1, seed 30530: a
// close from 12.2 s, the third ping from 12.48 s, its reconnect, then the
// unmount at 26.57 s) — unless that thread woke during this one's reconnect.
func (w *World) joinPing(ctx context.Context, rc *client.RealClient) error {
	for _, b := range w.beats {
		if b.rc != rc {
			continue
		}
		if rc.JoinsTaskPollFirst() {
			b.stopNext, b.joinFrom = true, w.k.Now()
		} else {
			b.stopping = true
		}
		for b.ev != nil {
			if err := w.Clock().Sleep(ctx, max(0, b.ev.At-w.k.Now())); err != nil {
				return err
			}
		}
		// The thread then waits for its remount thread.
		if err := w.waitMountLock(ctx, rc); err != nil {
			return err
		}
	}
	return nil
}
