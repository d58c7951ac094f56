// Package schedule is the one fault scheduler every engine uses. A
// world's Arm lowers its faults here (Lower: validated, checked against
// the world's capabilities, each lowered once to its primitive, which the
// world then vets itself), and the Scheduler injects each primitive at At,
// heals it at At+For and clears them all before a remedy. An engine
// supplies its injection (Inject, Clear) and a timer in Mooncake time
// (Timer): virtual in sim, wall time (scaled) in fake and real. The
// engine pulls the lowering; the scheduler only calls it back when a fault
// is due, as a timer calls back.
package schedule

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/trace"
)

// Inject starts p now and returns how to undo exactly it (nil: nothing to
// undo, e.g. a restart); other faults stay as they are. An engine switches
// on the primitive, never on a kind or a mode, and never asks the fault
// registry again.
type Inject func(ctx context.Context, p faults.Primitive) (heal func(context.Context) error, err error)

// Clear undoes every fault at once: links healed, every server running (a
// stopped one starts fresh, a paused one resumes).
type Clear func(ctx context.Context) error

// Timer runs the schedule in Mooncake time.
type Timer interface {
	// Now is Mooncake time since world start.
	Now() time.Duration
	// At runs fn at Mooncake time at (at once if that is past); cancel
	// stops it if it has not run.
	At(at time.Duration, name string, fn func()) (cancel func())
	// Virtual: time only moves in the event loop, so faults due now are
	// injected there too (sim). A wall timer's due faults are injected
	// before Arm returns, and their errors are Arm's.
	Virtual() bool
}

// actionTimeout bounds injecting or healing one fault from a wall timer
// (a restart waits for readiness).
const actionTimeout = 60 * time.Second

// Scheduler schedules one world's faults.
type Scheduler struct {
	ctx    context.Context // of timed actions: the world's lifetime
	inject Inject
	clear  Clear
	t      Timer
	tr     *trace.Trace

	// mu serialises injections, heals and Clear on wall timers: a heal
	// never races the injection it undoes. Lock order: mu, then the
	// engine's own locks. A virtual timer runs everything on the one event
	// loop goroutine, where an injection may itself advance time and fire
	// the next fault, so it takes no lock.
	mu      sync.Mutex
	cancels []func()
	closed  bool
	errs    []error // of injections and heals run from the timer
}

// New returns a scheduler that records fault events in tr. Timed actions
// run with ctx (the world's lifetime: cancelled when it closes).
func New(ctx context.Context, inject Inject, clear Clear, t Timer, tr *trace.Trace) *Scheduler {
	if tr == nil {
		tr = trace.New(nil)
	}
	return &Scheduler{ctx: ctx, inject: inject, clear: clear, t: t, tr: tr}
}

// Lower is the first half of a world's Arm: every fault validated, checked
// against the world's capabilities (a kind or mode not available with them
// is a skip with the reason) and lowered once to its primitive, which
// check, the world's own, vets (an *engine.Unsupported error makes the run
// a skip). Nothing is armed: if one cannot be injected, none is.
func Lower(fs []faults.Fault, caps faults.Capabilities, check func(faults.Primitive) error) ([]faults.Primitive, error) {
	for _, f := range fs {
		if err := f.Validate(); err != nil {
			return nil, fmt.Errorf("fault at line %d: %w", f.Line, err)
		}
	}
	ps := make([]faults.Primitive, 0, len(fs))
	for _, f := range fs {
		if err := faults.Available(f, caps); err != nil {
			return nil, engine.Unsupportedf("%s: %v", f, err)
		}
		p, err := faults.Lower(f)
		if err != nil {
			return nil, fmt.Errorf("fault at line %d: %w", f.Line, err)
		}
		if err := check(p); err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// Arm is the second half of a world's Arm: each primitive of Lower
// injected at its fault's At and healed at At+For.
func (s *Scheduler) Arm(ctx context.Context, ps []faults.Primitive) error {
	s.lock()
	defer s.unlock()
	if s.closed {
		return fmt.Errorf("arm faults: world closed")
	}
	for _, p := range ps {
		f := p.Source()
		var heal func(context.Context) error
		start := func(ctx context.Context) error {
			s.tr.Record("fault", "fault", "", "start "+f.String())
			h, err := s.inject(ctx, p)
			if err != nil {
				return fmt.Errorf("inject %s: %w", f, err)
			}
			heal = h
			return nil
		}
		if !s.t.Virtual() && f.At <= s.t.Now() {
			if err := start(ctx); err != nil {
				return err
			}
		} else {
			s.cancels = append(s.cancels, s.t.At(f.At, "fault "+f.String(), s.fire(start)))
		}
		if f.For > 0 {
			s.cancels = append(s.cancels, s.t.At(f.At+f.For, "heal "+f.String(), s.fire(func(ctx context.Context) error {
				if heal == nil {
					return nil
				}
				h := heal
				heal = nil
				s.tr.Record("fault", "fault", "", "heal "+f.String())
				if err := h(ctx); err != nil {
					return fmt.Errorf("heal %s: %w", f, err)
				}
				return nil
			})))
		}
	}
	return nil
}

// fire wraps a timed action: it runs under mu unless the world has
// closed, and its error is kept for Err and written to the trace.
func (s *Scheduler) fire(fn func(context.Context) error) func() {
	return func() {
		ctx, cancel := s.ctx, func() {}
		if !s.t.Virtual() {
			ctx, cancel = context.WithTimeout(ctx, actionTimeout)
		}
		defer cancel()
		s.lock()
		defer s.unlock()
		if s.closed {
			return
		}
		if err := fn(ctx); err != nil {
			s.errs = append(s.errs, err)
			s.tr.Log("harness", "ERROR", err.Error())
		}
	}
}

// ClearFaults implements engine.World.ClearFaults: pending faults are
// cancelled and every active one undone at once. A World embeds the
// Scheduler to get ClearFaults.
func (s *Scheduler) ClearFaults(ctx context.Context) error {
	s.lock()
	defer s.unlock()
	if s.closed {
		return fmt.Errorf("clear faults: world closed")
	}
	s.cancelLocked()
	s.tr.Record("fault", "fault", "", "clear all")
	if err := s.clear(ctx); err != nil {
		return fmt.Errorf("clear faults: %w", err)
	}
	return nil
}

func (s *Scheduler) cancelLocked() {
	for _, c := range s.cancels {
		c()
	}
	s.cancels = nil
}

// Close cancels pending faults; a timed action running now finishes
// first, later ones do nothing. It returns the errors of timed actions.
func (s *Scheduler) Close() error {
	s.lock()
	defer s.unlock()
	s.closed = true
	s.cancelLocked()
	return errors.Join(s.errs...)
}

func (s *Scheduler) lock() {
	if !s.t.Virtual() {
		s.mu.Lock()
	}
}

func (s *Scheduler) unlock() {
	if !s.t.Virtual() {
		s.mu.Unlock()
	}
}
