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

// Injector is an engine's fault primitives. The scheduler lowers each
// fault once (faults.Lower) and hands the injector the primitive: an
// engine switches on the primitive, never on a kind or a mode, and never
// asks the fault registry again.
type Injector interface {
	// Capabilities are what this world can inject; a fault its kind or
	// mode says is not available with them is a skip with the reason.
	Capabilities() faults.Capabilities
	// Check says whether this world can inject p; an *engine.Unsupported
	// error makes the run a skip with its reason. Nothing is injected.
	Check(p faults.Primitive) error
	// Inject starts p now and returns how to undo exactly it (nil: nothing
	// to undo, e.g. a restart). Other faults stay as they are.
	Inject(ctx context.Context, p faults.Primitive) (heal func(context.Context) error, err error)
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

// Arm implements engine.World.Arm: every fault is validated, checked
// against the world's capabilities and lowered first; if one cannot be
// injected nothing is armed.
func (s *Scheduler) Arm(ctx context.Context, fs []faults.Fault) error {
	ps, err := s.lower(fs)
	if err != nil {
		return err
	}
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
			h, err := s.inj.Inject(ctx, p)
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

// lower validates fs, checks each against the injector's capabilities and
// its world, and lowers each to its primitive.
func (s *Scheduler) lower(fs []faults.Fault) ([]faults.Primitive, error) {
	for _, f := range fs {
		if err := f.Validate(); err != nil {
			return nil, fmt.Errorf("fault at line %d: %w", f.Line, err)
		}
	}
	c := s.inj.Capabilities()
	ps := make([]faults.Primitive, 0, len(fs))
	for _, f := range fs {
		if err := faults.Available(f, c); err != nil {
			return nil, engine.Unsupportedf("%s: %v", f, err)
		}
		p, err := faults.Lower(f)
		if err != nil {
			return nil, fmt.Errorf("fault at line %d: %w", f.Line, err)
		}
		if err := s.inj.Check(p); err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return ps, nil
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
