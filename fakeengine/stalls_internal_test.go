package fakeengine

import (
	"context"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/master"
)

// The master's clock keeps the world's time and reports the stalls in
// Mooncake time.
func TestMasterClockReportsStalls(t *testing.T) {
	var st stalls
	st.total.Store(int64(time.Second))
	start := time.Now().Add(-3 * time.Second)
	c := masterClock{mooncakeClock{start: start, s: 0.1}, &st}
	var _ master.StallClock = c
	if m, w := c.Now(), (mooncakeClock{start: start, s: 0.1}).Now(); m < 30*time.Second || m > 31*time.Second || w-m > time.Second {
		t.Fatalf("master %s, world %s: want both 30 s", m, w)
	}
	if got := c.Stalled(); got != 10*time.Second {
		t.Fatalf("stalled %s, want 10 s", got)
	}
}

// watch ends with its context (the world's Close waits for it).
func TestStallsWatchEnds(t *testing.T) {
	var st stalls
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); st.watch(ctx) }()
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("watch did not end with its context")
	}
	if (*stalls)(nil).sum() != 0 {
		t.Fatal("nil stalls")
	}
}
