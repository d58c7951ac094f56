package realengine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"syscall"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
)

// How the real engine injects each fault:
//
//	master-down / metadata-down, link to master|metadata: toxiproxy in front of
//	  the server (refuse = proxy disabled, blackhole = timeout toxic 0,
//	  reset_peer, latency, bandwidth, slicer, limit_data).
//	client-down: mooncake_client itself (refuse = process stopped, blackhole =
//	  SIGSTOP), because the dummy→client link cannot be proxied (see Addr).
//	process: the server's process group (stop = SIGKILL, state lost; start;
//	  restart = stop + start on the same ports; pause = SIGSTOP; resume = SIGCONT).
//	Links between nodes run inside Mooncake's transfer engine: unsupported.

// activeFault is an applied fault and how to undo it.
type activeFault struct {
	f     faults.Fault
	apply func(ctx context.Context) error
	heal  func(ctx context.Context) error
	link  string // the proxy it acts on, if any
}

type faultPlan struct {
	apply func(ctx context.Context) error
	heal  func(ctx context.Context) error // nil: nothing to undo
	link  string
}

// faultTimeout bounds applying or healing one fault from a timer (a restart
// waits for readiness).
const faultTimeout = 60 * time.Second

// Arm implements engine.World. Every fault is checked first; if one cannot
// be injected nothing is armed. Faults due at or before now apply before
// Arm returns, the rest on wall-clock timers.
func (w *World) Arm(ctx context.Context, fs []faults.Fault) error {
	plans := make([]faultPlan, len(fs))
	for i, f := range fs {
		if err := f.Validate(); err != nil {
			return fmt.Errorf("real engine: fault %d (line %d): %w", i, f.Line, err)
		}
		p, err := w.plan(f)
		if err != nil {
			return err
		}
		plans[i] = p
	}
	now := w.Clock().Now()
	for i, f := range fs {
		p := plans[i]
		if f.At <= now {
			if err := w.applyFault(ctx, f, p); err != nil {
				return err
			}
		} else {
			w.after(f.At-now, func() {
				ctx, cancel := context.WithTimeout(context.Background(), faultTimeout)
				defer cancel()
				w.noteFaultErr(w.applyFault(ctx, f, p))
			})
		}
		if f.For > 0 && p.heal != nil {
			w.after(f.At+f.For-now, func() {
				ctx, cancel := context.WithTimeout(context.Background(), faultTimeout)
				defer cancel()
				w.noteFaultErr(w.healFault(ctx, f))
			})
		}
	}
	return nil
}

func (w *World) after(d time.Duration, fn func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	w.timers = append(w.timers, time.AfterFunc(d, func() {
		w.mu.Lock()
		closed := w.closed
		w.mu.Unlock()
		if !closed {
			fn()
		}
	}))
}

func (w *World) noteFaultErr(err error) {
	if err == nil {
		return
	}
	w.log.Error("real engine: fault", "err", err)
	if w.spec.Trace != nil {
		w.spec.Trace.Log("harness", "ERROR", err.Error())
	}
	w.mu.Lock()
	w.faultErrs = append(w.faultErrs, err)
	w.mu.Unlock()
}

func (w *World) record(text string) {
	if w.spec.Trace != nil {
		w.spec.Trace.Record("fault", "fault", "", text)
	}
}

func (w *World) applyFault(ctx context.Context, f faults.Fault, p faultPlan) error {
	if err := p.apply(ctx); err != nil {
		return fmt.Errorf("real engine: apply %s: %w", f, err)
	}
	w.record(f.String())
	if p.heal != nil {
		w.mu.Lock()
		w.active = append(w.active, activeFault{f: f, apply: p.apply, heal: p.heal, link: p.link})
		w.mu.Unlock()
	}
	return nil
}

// healFault undoes one active fault (the first match).
func (w *World) healFault(ctx context.Context, f faults.Fault) error {
	w.mu.Lock()
	var heal func(context.Context) error
	for i, a := range w.active {
		if a.f == f {
			heal = a.heal
			w.active = append(w.active[:i], w.active[i+1:]...)
			break
		}
	}
	w.mu.Unlock()
	if heal == nil {
		return nil
	}
	if err := heal(ctx); err != nil {
		return fmt.Errorf("real engine: heal %s: %w", f, err)
	}
	w.record("healed " + f.String())
	return nil
}

// ClearFaults implements engine.World: pending faults are cancelled, active
// ones undone (links restored, stopped servers started, paused resumed).
func (w *World) ClearFaults(ctx context.Context) error {
	w.mu.Lock()
	for _, t := range w.timers {
		t.Stop()
	}
	w.timers = nil
	active := w.active
	w.active = nil
	w.mu.Unlock()
	var errs []error
	// Undo in reverse order of application.
	for i := len(active) - 1; i >= 0; i-- {
		if err := active[i].heal(ctx); err != nil {
			errs = append(errs, fmt.Errorf("heal %s: %w", active[i].f, err))
		}
	}
	if err := w.inj.HealAll(ctx); err != nil {
		errs = append(errs, err)
	}
	// Servers a "stop" or "pause" action left down have no heal of their own.
	w.mu.Lock()
	var down, paused []*server
	for _, role := range sortedKeys(w.servers) {
		s := w.servers[role]
		if s.down {
			down = append(down, s)
		} else if s.paused {
			paused = append(paused, s)
		}
	}
	w.mu.Unlock()
	for _, s := range paused {
		errs = append(errs, w.resume(s))
	}
	for _, s := range down {
		errs = append(errs, w.startServer(ctx, s))
	}
	w.record("faults cleared")
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("real engine: clear faults: %w", err)
	}
	return nil
}

// plan decides how to inject f, or says why it cannot be.
func (w *World) plan(f faults.Fault) (faultPlan, error) {
	switch f.Kind {
	case faults.MasterDown:
		if w.spec.Master == nil {
			return faultPlan{}, fmt.Errorf("real engine: %s: the topology has no master", f)
		}
		return w.linkPlan("master", f), nil
	case faults.MetadataDown:
		if w.spec.Metadata == "P2PHANDSHAKE" {
			return faultPlan{}, fmt.Errorf("real engine: %s: the topology has no metadata server (P2PHANDSHAKE)", f)
		}
		return w.linkPlan("metadata", f), nil
	case faults.ClientDown:
		s, err := w.server("client", f)
		if err != nil {
			return faultPlan{}, err
		}
		if f.Mode == faults.ModeRefuse {
			return faultPlan{apply: func(ctx context.Context) error { return w.stopServer(ctx, s) },
				heal: func(ctx context.Context) error { return w.ensureStarted(ctx, s) }}, nil
		}
		return faultPlan{apply: func(context.Context) error { return w.pause(s) },
			heal: func(context.Context) error { return w.resume(s) }}, nil
	case faults.Link:
		switch f.Target {
		case "master", "metadata":
			if _, err := w.inj.Addr(f.Target); err != nil {
				return faultPlan{}, fmt.Errorf("real engine: %s: the topology has no proxied %s link", f, f.Target)
			}
			return w.linkPlan(f.Target, f), nil
		case "client":
			return faultPlan{}, engine.Unsupportedf("%s: the dummy→mooncake_client link cannot be proxied (the dummy derives its IPC socket name from the port); use client-down or a process fault", f)
		}
		for _, n := range w.spec.Nodes {
			if n.Name == f.Target {
				return faultPlan{}, engine.Unsupportedf("%s: links between nodes run inside Mooncake's transfer engine; the real engine cannot proxy them", f)
			}
		}
		return faultPlan{}, fmt.Errorf("real engine: %s: no link target %q", f, f.Target)
	case faults.Process:
		if f.Target == "metadata" && w.spec.Metadata == "master" {
			return faultPlan{}, engine.Unsupportedf("%s: the HTTP metadata server is embedded in mooncake_master here; act on target master", f)
		}
		s, err := w.server(f.Target, f)
		if err != nil {
			return faultPlan{}, err
		}
		switch f.Action {
		case "stop":
			return faultPlan{apply: func(ctx context.Context) error { return w.stopServer(ctx, s) },
				heal: func(ctx context.Context) error { return w.ensureStarted(ctx, s) }}, nil
		case "start":
			return faultPlan{apply: func(ctx context.Context) error { return w.ensureStarted(ctx, s) }}, nil
		case "restart":
			return faultPlan{apply: func(ctx context.Context) error {
				if err := w.stopServer(ctx, s); err != nil {
					return err
				}
				return w.startServer(ctx, s)
			}}, nil
		case "pause":
			return faultPlan{apply: func(context.Context) error { return w.pause(s) },
				heal: func(context.Context) error { return w.resume(s) }}, nil
		case "resume":
			return faultPlan{apply: func(context.Context) error { return w.resume(s) }}, nil
		}
	}
	return faultPlan{}, fmt.Errorf("real engine: cannot inject %s", f)
}

func (w *World) linkPlan(link string, f faults.Fault) faultPlan {
	return faultPlan{
		apply: func(ctx context.Context) error { return w.inj.Apply(ctx, link, f) },
		heal:  func(ctx context.Context) error { return w.healLink(ctx, link, f) },
		link:  link,
	}
}

// healLink restores a proxy, then re-applies the other faults still active
// on it (toxiproxy heals a link as a whole), unless its server is down.
func (w *World) healLink(ctx context.Context, link string, f faults.Fault) error {
	if err := w.inj.Heal(ctx, link); err != nil {
		return err
	}
	return w.reapply(ctx, link, f)
}

func (w *World) reapply(ctx context.Context, link string, except faults.Fault) error {
	w.mu.Lock()
	var again []activeFault
	for _, a := range w.active {
		if a.link == link && a.f != except {
			again = append(again, a)
		}
	}
	serverDown := false
	for _, s := range w.servers {
		if s.down && slices.Contains(s.links, link) {
			serverDown = true
		}
	}
	w.mu.Unlock()
	if serverDown {
		// The stopped server's refusal stays; its start reopens the link.
		return w.inj.Apply(ctx, link, faults.Fault{Kind: faults.Link, Target: link, Mode: faults.ModeRefuse})
	}
	var errs []error
	for _, a := range again {
		errs = append(errs, a.apply(ctx))
	}
	return errors.Join(errs...)
}

// reopenLinks restores the proxies of a (re)started server and re-applies
// the link faults still active on them.
func (w *World) reopenLinks(ctx context.Context, s *server) error {
	w.mu.Lock()
	links := append([]string(nil), s.links...)
	w.mu.Unlock()
	var errs []error
	for _, l := range links {
		if _, err := w.inj.Addr(l); err != nil {
			continue // first start: the proxy is made after readiness
		}
		if err := w.inj.Heal(ctx, l); err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, w.reapply(ctx, l, faults.Fault{}))
	}
	return errors.Join(errs...)
}

func (w *World) server(role string, f faults.Fault) (*server, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s, ok := w.servers[role]
	if !ok {
		return nil, fmt.Errorf("real engine: %s: the topology has no %s process", f, role)
	}
	return s, nil
}

// ensureStarted starts s if a fault stopped it.
func (w *World) ensureStarted(ctx context.Context, s *server) error {
	w.mu.Lock()
	down := s.down
	w.mu.Unlock()
	if !down {
		return nil
	}
	return w.startServer(ctx, s)
}

// stopServer kills the server's group at once, as a crash would.
func (w *World) stopServer(ctx context.Context, s *server) error {
	w.mu.Lock()
	p := s.p
	w.mu.Unlock()
	if err := p.stop(ctx, 0); err != nil {
		return err
	}
	w.mu.Lock()
	s.down, s.paused = true, false
	links := append([]string(nil), s.links...)
	w.mu.Unlock()
	var errs []error
	for _, l := range links {
		errs = append(errs, w.inj.Apply(ctx, l, faults.Fault{Kind: faults.Link, Target: l, Mode: faults.ModeRefuse}))
	}
	return errors.Join(errs...)
}

func (w *World) pause(s *server) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := s.p.signal(syscall.SIGSTOP); err != nil {
		return err
	}
	s.paused = true
	return nil
}

func (w *World) resume(s *server) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !s.paused {
		return nil
	}
	if err := s.p.signal(syscall.SIGCONT); err != nil {
		return err
	}
	s.paused = false
	return nil
}
