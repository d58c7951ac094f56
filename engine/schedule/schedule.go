// Package schedule is the one fault scheduler every engine uses: it
// validates faults, asks the world whether it can inject them (else the
// run is a skip), injects each at At, heals it at At+For, and clears them
// all before a remedy. An engine supplies only the primitive injection
// (Injector) and a timer in Mooncake time (Timer): virtual in sim, wall
// time (scaled) in fake and real.
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

// Injector is an engine's fault primitive.
type Injector interface {
	// Check says whether this world can inject f; an *engine.Unsupported
	// error makes the run a skip with its reason. Nothing is injected.
	Check(f faults.Fault) error
	// Inject starts f now and returns how to undo exactly it (nil: nothing
	// to undo, e.g. a restart). Other faults stay as they are.
	Inject(ctx context.Context, f faults.Fault) (heal func(context.Context) error, err error)
	// Clear undoes every fault at once: links healed, every server running
	// (a stopped one starts fresh, a paused one resumes).
	Clear(ctx context.Context) error
}

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
	ctx context.Context // of timed actions: the world's lifetime
	inj Injector
	t   Timer
	tr  *trace.Trace

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
func New(ctx context.Context, inj Injector, t Timer, tr *trace.Trace) *Scheduler {
	if tr == nil {
		tr = trace.New(nil)
	}
	return &Scheduler{ctx: ctx, inj: inj, t: t, tr: tr}
}

// Arm implements engine.World.Arm: every fault is validated and checked
// first; if one cannot be injected nothing is armed.
func (s *Scheduler) Arm(ctx context.Context, fs []faults.Fault) error {
	for _, f := range fs {
		if err := f.Validate(); err != nil {
			return fmt.Errorf("fault at line %d: %w", f.Line, err)
		}
	}
	c, ok := s.inj.(interface{ InContainers() bool })
	inContainers := ok && c.InContainers()
	for _, f := range fs {
		if faults.NeedsContainers(f) && !inContainers {
			return engine.Unsupportedf("%s needs a container world (faultlab run --containers)", f)
		}
		if err := s.inj.Check(f); err != nil {
			return err
		}
	}
	s.lock()
	defer s.unlock()
	if s.closed {
		return fmt.Errorf("arm faults: world closed")
	}
	for _, f := range fs {
		var heal func(context.Context) error
		start := func(ctx context.Context) error {
			s.tr.Record("fault", "fault", "", "start "+f.String())
			h, err := s.inj.Inject(ctx, f)
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
// Scheduler to get Arm and ClearFaults.
func (s *Scheduler) ClearFaults(ctx context.Context) error {
	s.lock()
	defer s.unlock()
	if s.closed {
		return fmt.Errorf("clear faults: world closed")
	}
	s.cancelLocked()
	s.tr.Record("fault", "fault", "", "clear all")
	if err := s.inj.Clear(ctx); err != nil {
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
