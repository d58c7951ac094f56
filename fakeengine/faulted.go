package fakeengine

import (
	"context"
	"sync"
	"time"
)

// faultCount counts a world's active faults. Scaled timeouts are short in
// wall time (curl's 3 s is 60 ms at TimeoutScale 0.02), so on a loaded
// machine a party's answer can miss one that Mooncake would never miss: a
// flake, not a verdict. Where no fault is active nothing in the world
// delays an answer (sim's parties answer at once), so the wait for a
// party gets at least quietTimeout of wall time; with a fault active it
// stays scaled, as the fault's timing needs.
type faultCount struct {
	mu     sync.Mutex
	n      int
	clears int // Clear's generation: heals from before it count nothing
}

// quietTimeout is the least wall time a party's answer gets in a world
// without active faults: far beyond any stall of a loaded 2-core machine.
const quietTimeout = time.Second

// track counts a fault until its heal runs (once, and not after Clear).
func (c *faultCount) track(heal func(context.Context) error) func(context.Context) error {
	c.mu.Lock()
	c.n++
	gen := c.clears
	c.mu.Unlock()
	var once sync.Once
	return func(ctx context.Context) error {
		once.Do(func() {
			c.mu.Lock()
			if c.clears == gen {
				c.n--
			}
			c.mu.Unlock()
		})
		return heal(ctx)
	}
}

// clear: every fault is undone at once.
func (c *faultCount) clear() {
	c.mu.Lock()
	c.n, c.clears = 0, c.clears+1
	c.mu.Unlock()
}

// quiet reports whether no fault is active.
func (c *faultCount) quiet() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n == 0
}

// partyTimeout is the wall time a Mooncake timeout d gives a party of the
// world: scaled, but at least min(d, quietTimeout) when no fault is active.
func (w *World) partyTimeout(d time.Duration) time.Duration {
	t := w.scale.timeout(d)
	if w.faulted.quiet() {
		t = max(t, min(d, quietTimeout))
	}
	return t
}
