package realengine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/engine/schedule"
	"github.com/mooncake-faultlab/faultlab/faults"
)

// How the real engine injects each fault:
//
//	master-down / metadata-down, link to master|metadata: toxiproxy in front of
//	  the server (refuse = proxy disabled, blackhole = timeout toxic 0,
//	  reset_peer, latency, bandwidth, slicer, limit_data, slow_close); a
//	  mode without a toxic (drop_every) is a skip with its reason.
//	Each fault is injected as its primitive (faults.Lower): link, process,
//	container.
//	client-down: mooncake_client itself (refuse = process stopped, blackhole =
//	  SIGSTOP), because the dummy→client link cannot be proxied (see Addr).
//	process: the server's process group (stop = SIGKILL, state lost; start;
//	  restart = stop + start on the same ports; pause = SIGSTOP; resume = SIGCONT).
//	Links between nodes run inside Mooncake's transfer engine: unsupported.
//
// World embeds the engine/schedule Scheduler (Arm, ClearFaults): faults due
// at or before now apply before Arm returns, the rest on wall-clock timers.

// Arm implements engine.World.Arm: the faults lowered and checked against
// this world (schedule.Lower), then scheduled in wall time.
func (w *World) Arm(ctx context.Context, fs []faults.Fault) error {
	ps, err := schedule.Lower(fs, injector{w}.Capabilities(), injector{w}.Check)
	if err == nil {
		err = w.Scheduler.Arm(ctx, ps)
	}
	return err
}

// injector is the real engine's fault primitive for the scheduler.
type injector struct{ w *World }

// Check vets a lowered fault in this world (schedule.Lower).
func (in injector) Check(p faults.Primitive) error {
	_, err := in.w.action(p)
	return err
}

// Inject is the world's schedule.Inject.
func (in injector) Inject(ctx context.Context, p faults.Primitive) (func(context.Context) error, error) {
	a, err := in.w.action(p)
	if err != nil {
		return nil, err
	}
	return a(ctx)
}

// Clear is the world's schedule.Clear: every link healed first, paused
// servers resumed, stopped or dead ones started (which releases their links) in
// dependency order — a mooncake_client started before the metadata service
// or master it registers with fails setup and aborts (explore seed 119).
func (in injector) Clear(ctx context.Context) error {
	w := in.w
	var errs []error
	if err := w.inj.HealAll(ctx); err != nil {
		errs = append(errs, err)
	}
	w.mu.Lock()
	heal := w.answerHeal
	w.answerHeal = nil
	w.mu.Unlock()
	if heal != nil { // the answer proxy out of the metadata link
		errs = append(errs, heal(ctx))
	}
	errs = append(errs, w.releaseHeldPorts(ctx))
	w.mu.Lock()
	var down, paused []*server
	for _, role := range startOrder(w.servers) {
		s := w.servers[role]
		switch {
		case s.down:
			down = append(down, s)
		case s.paused:
			paused = append(paused, s)
		case s.p != nil && s.p.Exited():
			// Died of a fault without the harness's hand (the kernel's
			// OOM killer under a container memory limit): healed, a new
			// one starts, as sim's Clear starts any master not running.
			down = append(down, s)
		}
	}
	w.mu.Unlock()
	for _, s := range paused {
		errs = append(errs, w.resume(s))
	}
	for _, s := range down {
		errs = append(errs, w.startServer(ctx, s))
	}
	return errors.Join(errs...)
}

// inject starts a fault and returns its heal.
type inject func(ctx context.Context) (heal func(context.Context) error, err error)

// action decides how to inject primitive p, or says why it cannot be.
func (w *World) action(p faults.Primitive) (inject, error) {
	f := p.Source()
	switch p := p.(type) {
	case faults.ProcessPrimitive:
		if err := w.vanishCheck(p); err != nil {
			return nil, err
		}
		if p.Target == faults.TargetMasterLeader {
			return w.leaderAction(p), nil
		}
		s, err := w.server(p.Target, f)
		if err != nil {
			return nil, err
		}
		return w.processAction(s, p.Action), nil
	case faults.ContainerPrimitive:
		return w.containerAction(p)
	case faults.LinkPrimitive:
		return w.linkAction(p)
	case faults.AnswerPrimitive:
		return w.answerAction(p)
	case faults.PortPrimitive:
		return w.portAction(p)
	case faults.OffloadFilesPrimitive:
		return w.offloadFilesAction(p)
	case faults.PortRacePrimitive:
		// The probe's port is drawn with std::random_device and listened on
		// microseconds later in the same init (docs/REAL-FINDINGS.md §120):
		// no socket of the harness's can share it on demand.
		return nil, engine.Unsupportedf("real engine: %s: another engine's probe cannot be made to land on this engine's random port inside its probe-to-listen window", f)
	default:
		return nil, engine.Unsupportedf("real engine: %s: %T cannot be injected here", f, p)
	}
}

// linkAction: the fault's toxic (or the proxy stopped) on the proxy in
// front of the target.
func (w *World) linkAction(p faults.LinkPrimitive) (inject, error) {
	f := p.Fault
	switch to := p.Target; to {
	case "master", "metadata":
		if _, err := w.inj.Addr(to); err != nil {
			return nil, fmt.Errorf("real engine: %s: the topology has no proxied %s link", f, to)
		}
		return func(ctx context.Context) (func(context.Context) error, error) { return w.inj.Inject(ctx, to, f) }, nil
	case "client":
		return nil, engine.Unsupportedf("%s: the dummy→mooncake_client link cannot be proxied (the dummy derives its IPC socket name from the port); use client-down or a process fault", f)
	default:
		for _, n := range w.spec.Nodes {
			if n.Name == to {
				return nil, engine.Unsupportedf("%s: links between nodes run inside Mooncake's transfer engine; the real engine cannot proxy them", f)
			}
		}
		return nil, fmt.Errorf("real engine: %s: no link target %q", f, to)
	}
}

// processAction acts on a server process; its heal is the action's undo
// (faults.Undo).
func (w *World) processAction(s *server, action string) inject {
	if action == faults.Vanish {
		return w.vanishAction(s)
	}
	do := func(ctx context.Context, action string) error { return w.doProcess(ctx, s, action) }
	return func(ctx context.Context) (func(context.Context) error, error) {
		if err := do(ctx, action); err != nil {
			return nil, err
		}
		undo := faults.Undo(action)
		if undo == "" {
			return nil, nil
		}
		return func(ctx context.Context) error { return do(ctx, undo) }, nil
	}
}

// doProcess runs one process action on a server (in a container world, on
// its container: stop removes it, pause freezes it).
func (w *World) doProcess(ctx context.Context, s *server, action string) error {
	switch action {
	case "stop":
		return w.stopServer(ctx, s)
	case "start":
		return w.ensureStarted(ctx, s)
	case "restart":
		if err := w.stopServer(ctx, s); err != nil {
			return err
		}
		return w.startServer(ctx, s)
	case "pause":
		return w.pause(s)
	case "resume":
		return w.resume(s)
	}
	return fmt.Errorf("real engine: process action %q", action)
}

// reopenLinks releases the proxies of a (re)started server: they pass
// traffic again, with whatever link faults are still on them.
func (w *World) reopenLinks(ctx context.Context, s *server) error {
	w.mu.Lock()
	links := append([]string(nil), s.links...)
	w.mu.Unlock()
	var errs []error
	for _, l := range links {
		if _, err := w.inj.Addr(l); err != nil {
			continue // first start: the proxy is made after readiness
		}
		errs = append(errs, w.inj.Release(ctx, l))
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
	// Its proxies refuse too, as the real port would, until it starts.
	var errs []error
	for _, l := range links {
		errs = append(errs, w.inj.Hold(ctx, l))
	}
	return errors.Join(errs...)
}

func (w *World) pause(s *server) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if s.p.stoppedOnPurpose() {
		// SIGSTOP to a process a fault killed reaches nobody (ESRCH); the
		// heal starts it again (sim does the same; corpus seed 20261130003440).
		return nil
	}
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

// dependencyRank orders server roles by what needs what: the metadata
// service and master first, mooncake_client (which sets up against both)
// after them; unknown roles last, by name.
var dependencyRank = map[string]int{"metadata": 0, "master": 1, "client": 2}

// startOrder is the roles of servers in dependency order.
func startOrder(servers map[string]*server) []string {
	roles := sortedKeys(servers)
	rank := func(r string) int {
		if n, ok := dependencyRank[r]; ok {
			return n
		}
		return len(dependencyRank)
	}
	slices.SortStableFunc(roles, func(a, b string) int { return rank(a) - rank(b) })
	return roles
}

// offloadFilesAction deletes every file in the world's offload directory
// (Addr("offload_dir")) under the running processes; nothing undoes it.
func (w *World) offloadFilesAction(p faults.OffloadFilesPrimitive) (inject, error) {
	if w.ctr != nil {
		return nil, engine.Unsupportedf("real engine: %s: the offload directory is this host's, not a container's", p.Fault)
	}
	dir := filepath.Join(w.dir, "offload")
	return func(context.Context) (func(context.Context) error, error) {
		files, err := filepath.Glob(filepath.Join(dir, "*"))
		if err != nil {
			return nil, fmt.Errorf("real engine: %s: %w", p.Fault, err)
		}
		for _, f := range files {
			if err := os.RemoveAll(f); err != nil {
				return nil, fmt.Errorf("real engine: %s: %w", p.Fault, err)
			}
		}
		return nil, nil
	}, nil
}
