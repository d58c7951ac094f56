package wire

import (
	"runtime"
	"time"
)

// AfterPrecise runs fn once d has passed, late by tens of microseconds
// rather than up to a millisecond. Go timers are coarse at both ends here:
// a long one sleeps in epoll_wait (whole milliseconds, ~0.5 ms late) and
// a sub-millisecond sleep overshoots by ~0.9 ms; the fake engine's
// TimeoutScale magnifies every late millisecond (at 0.01, 1 ms of wall time
// is 100 ms of Mooncake time). So: a timer to 2 ms short, a sleep to 1 ms
// short, then yield until the deadline (≤ 1 ms of a spinning goroutine
// per expiry).
func AfterPrecise(d time.Duration, fn func()) *time.Timer {
	deadline := time.Now().Add(d)
	return time.AfterFunc(max(d-2*time.Millisecond, 0), func() {
		if rem := time.Until(deadline); rem > time.Millisecond {
			time.Sleep(rem - time.Millisecond)
		}
		for time.Now().Before(deadline) {
			runtime.Gosched()
		}
		fn()
	})
}

// SleepPrecise is AfterPrecise as a blocking wait; it returns early with
// false when done is closed.
func SleepPrecise(d time.Duration, done <-chan struct{}) bool {
	if d <= 0 {
		return true
	}
	ch := make(chan struct{})
	t := AfterPrecise(d, func() { close(ch) })
	select {
	case <-ch:
		return true
	case <-done:
		t.Stop()
		return false
	}
}
