package fakeengine

import (
	"context"
	"sync/atomic"
	"time"
)

// stalls measures the time the harness process was not scheduled: a
// goroutine that sleeps stallTick and wakes more than stallThreshold late
// counts the excess. The fake's Mooncake time is wall time / scale, so a
// stall of the process is magnified 1/scale: at 0.05 a 0.5 s stall is
// client_ttl's 10 s, and the master, lazy (its monitor ticks catch up on
// the next RPC), expired a client whose pings were due during it (a fresh
// .ci/run, io/mixed-transport-tcp-into-rdma; docs/ENGINES.md "fake"). A
// paused machine is not a Mooncake event: the master's clock reports the
// stalls (masterClock, master.StallClock) and the master extends a
// client's client_ttl by those since its last ping. Only there: leaving
// them out of the master's time as a whole made its leases lag the
// world's clock (io/eviction-starved-leases, the next run).
type stalls struct{ total atomic.Int64 }

const (
	stallTick      = 10 * time.Millisecond
	stallThreshold = 100 * time.Millisecond
)

// watch measures until ctx ends.
func (s *stalls) watch(ctx context.Context) {
	t := time.NewTicker(stallTick)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if late := now.Sub(last) - stallTick; late > stallThreshold {
				s.total.Add(int64(late))
			}
			last = now
		}
	}
}

// sum is the stalls measured so far.
func (s *stalls) sum() time.Duration {
	if s == nil {
		return 0
	}
	return time.Duration(s.total.Load())
}

// masterClock is the master model's clock: the world's Mooncake time, and
// the process's stalls in Mooncake time (master.StallClock).
type masterClock struct {
	mooncakeClock
	st *stalls
}

func (c masterClock) Stalled() time.Duration { return c.s.mooncake(c.st.sum()) }
