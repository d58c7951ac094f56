package fakeengine

import (
	"context"
	"testing"
	"time"
)

// The master's clock leaves out the process's stalls; other clocks do not.
func TestMasterClockLeavesOutStalls(t *testing.T) {
	var st stalls
	st.total.Store(int64(time.Second))
	start := time.Now().Add(-3 * time.Second)
	m := masterClock{start: start, s: 0.1, st: &st}.Now()
	w := mooncakeClock{start: start, s: 0.1}.Now()
	if m < 20*time.Second || m > 21*time.Second || w < 30*time.Second || w > 31*time.Second {
		t.Fatalf("master %s, world %s: want 20 s and 30 s", m, w)
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
