// Package kernel is sim's discrete-event core: a virtual clock
// (time.Duration since world start), an event queue ordered by (time,
// sequence), and each component's seeded RNG stream (models/rng). Single
// goroutine; nothing reads the wall clock.
package kernel

import (
	"container/heap"
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/rng"
)

// Event is a scheduled action.
type Event struct {
	At   time.Duration
	Name string
	Fn   func()
	seq  uint64
	dead bool
}

// Cancel stops a pending event from firing.
func (e *Event) Cancel() { e.dead = true }

type queue []*Event

func (q queue) Len() int { return len(q) }
func (q queue) Less(i, j int) bool {
	if q[i].At != q[j].At {
		return q[i].At < q[j].At
	}
	return q[i].seq < q[j].seq
}
func (q queue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *queue) Push(x any)   { *q = append(*q, x.(*Event)) }
func (q *queue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// Kernel owns virtual time.
type Kernel struct {
	seed  uint64
	now   time.Duration
	seq   uint64
	q     queue
	fired uint64
	spent [engine.Accounts]time.Duration // engine.AccountingClock's accounts
}

// New returns a kernel at time 0.
func New(seed uint64) *Kernel { return &Kernel{seed: seed} }

// Seed is the root seed.
func (k *Kernel) Seed() uint64 { return k.seed }

// Now is the virtual time since world start.
func (k *Kernel) Now() time.Duration { return k.now }

// Fired counts events run so far.
func (k *Kernel) Fired() uint64 { return k.fired }

// Pending counts live queued events.
func (k *Kernel) Pending() int {
	n := 0
	for _, e := range k.q {
		if !e.dead {
			n++
		}
	}
	return n
}

// At schedules fn at absolute time t (clamped to now: the past is gone).
func (k *Kernel) At(t time.Duration, name string, fn func()) *Event {
	if t < k.now {
		t = k.now
	}
	k.seq++
	e := &Event{At: t, Name: name, Fn: fn, seq: k.seq}
	heap.Push(&k.q, e)
	return e
}

// After schedules fn d after now.
func (k *Kernel) After(d time.Duration, name string, fn func()) *Event {
	return k.At(k.now+d, name, fn)
}

// RunUntil fires every event due at or before t in (time, sequence) order,
// including events those events schedule, then sets the clock to t.
func (k *Kernel) RunUntil(t time.Duration) {
	for len(k.q) > 0 && k.q[0].At <= t {
		e := heap.Pop(&k.q).(*Event)
		if e.dead {
			continue
		}
		if e.At > k.now {
			k.now = e.At
		}
		k.fired++
		e.Fn()
	}
	if t > k.now {
		k.now = t
	}
}

// Advance moves time forward by d, firing due events.
func (k *Kernel) Advance(d time.Duration) {
	if d < 0 {
		d = 0
	}
	k.RunUntil(k.now + d)
}

// Stream returns the RNG stream of a component (rng.Stream of the root
// seed), so adding a component never shifts another's draws.
func (k *Kernel) Stream(name string) *rand.Rand { return rng.Stream(k.seed, name) }

// Clock adapts the kernel to engine.Clock: Sleep advances virtual time.
type Clock struct{ K *Kernel }

// Now implements engine.Clock.
func (c Clock) Now() time.Duration { return c.K.Now() }

// Sleep implements engine.Clock: it fires due events while time passes.
func (c Clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sleep %s: %w", d, err)
	}
	c.K.Advance(d)
	return nil
}

// Charge implements engine.AccountingClock.
func (c Clock) Charge(a engine.Account, d time.Duration) { c.K.spent[a] += d }

// Spent implements engine.AccountingClock.
func (c Clock) Spent(a engine.Account) time.Duration { return c.K.spent[a] }
