package fakeengine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/engine/schedule"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/models/te"
)

// Faults in the fake engine: World embeds the engine/schedule Scheduler
// (Arm, ClearFaults; At and For are Mooncake time, scaled to wall time);
// this is its injector. A link fault is its toxic on every node's proxy
// to the target; a process fault stops, starts, pauses or resumes a served
// model.

// Arm implements engine.World.Arm: the faults lowered and checked against
// this world (schedule.Lower), then scheduled in scaled wall time.
func (w *World) Arm(ctx context.Context, fs []faults.Fault) error {
	ps, err := schedule.Lower(fs, injector{w}.Capabilities(), injector{w}.Check)
	if err == nil {
		err = w.Scheduler.Arm(ctx, ps)
	}
	return err
}

// injector is the fake engine's fault primitive for the scheduler.
type injector struct{ w *World }

// Check vets a lowered fault in this world (schedule.Lower).
func (in injector) Check(p faults.Primitive) error {
	f := p.Source()
	w := in.w
	w.mu.Lock()
	defer w.mu.Unlock()
	switch p := p.(type) {
	case faults.ContainerPrimitive:
		ps, err := w.containerParties(p)
		if err == nil && faults.ContainerEnds(p.Action) {
			for _, sp := range ps {
				sp.mu.Lock()
				sp.prepareSpareLocked()
				sp.mu.Unlock()
			}
		}
		return err
	case faults.ProcessPrimitive:
		if p.Action == faults.Vanish {
			// Its world is an HA master pair, which fake does not build.
			return engine.Unsupportedf("fake engine: process %s: modelled for an HA master only (sim, real)", p.Action)
		}
		switch p.Target {
		case "master":
			if w.masterAddr == "" {
				return engine.Unsupportedf("fake engine: process %s: the topology has no master", p.Action)
			}
		case "metadata":
			if w.metaAddr == "" {
				return engine.Unsupportedf("fake engine: process %s: the topology has no HTTP metadata server", p.Action)
			}
			if w.etcd != nil && (p.Action == "pause" || p.Action == "resume") {
				return engine.Unsupportedf("fake engine: process %s: embedded etcd cannot be paused", p.Action)
			}
		case "client":
			if w.client == nil {
				return engine.Unsupportedf("fake engine: process %s: the topology has no mooncake_client", p.Action)
			}
		default:
			return engine.Unsupportedf("fake engine: process target %s not served", p.Target)
		}
		return nil
	case faults.RDMAPrimitive:
		if why := te.RDMAUnsupported(p, w.spec.Nodes, w.profile); why != "" {
			return engine.Unsupportedf("fake engine: %s", why)
		}
		return nil
	case faults.AnswerPrimitive:
		if w.metaHandler == nil {
			return engine.Unsupportedf("fake engine: %s: no HTTP metadata server served in this world", f)
		}
		return nil
	case faults.PortPrimitive, faults.PortRacePrimitive:
		return nil
	case faults.LinkPrimitive:
		if len(w.linksTo(p.Target)) == 0 {
			return engine.Unsupportedf("fake engine: no link to %s in this topology", p.Target)
		}
		return nil
	default:
		return engine.Unsupportedf("fake engine: %s: %T is not served", f, p)
	}
}

// Inject is the world's schedule.Inject.
func (in injector) Inject(ctx context.Context, p faults.Primitive) (func(context.Context) error, error) {
	heal, err := in.inject(ctx, p)
	if err != nil || heal == nil || !delaysAnswers(p) {
		return heal, err
	}
	return in.w.faulted.track(heal), nil
}

// delaysAnswers: whether a fault can hold up a party's answer (a link's
// toxic, a paused or stopped process or container, a metadata server's
// answer, a held port whose holder never answers: the master's metadata
// port up to 0.3.11.post1). An RNIC's failure and SSD-offload files
// removed cannot: with only those active a party's wait stays quiet
// (faulted.go), so a loaded machine does not time out a healthy metadata
// server at the scaled 0.3 s (io/rdma-handshake-rtr-timeout: one put -200
// for -800, docs/MEASUREMENTS.md run 110).
func delaysAnswers(p faults.Primitive) bool {
	switch p.(type) {
	case faults.RDMAPrimitive, faults.OffloadFilesPrimitive:
		return false
	}
	return true
}

func (in injector) inject(ctx context.Context, p faults.Primitive) (func(context.Context) error, error) {
	f := p.Source()
	w := in.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, fmt.Errorf("fake engine: inject %s: world closed", f)
	}
	switch p := p.(type) {
	case faults.ContainerPrimitive:
		return w.containerInject(ctx, p)
	case faults.ProcessPrimitive:
		if err := w.processLocked(ctx, p.Target, p.Action); err != nil {
			return nil, err
		}
		if p.Undo == "" {
			return nil, nil
		}
		return func(ctx context.Context) error {
			w.mu.Lock()
			defer w.mu.Unlock()
			if w.closed {
				return nil
			}
			return w.processLocked(ctx, p.Target, p.Undo)
		}, nil
	case faults.LinkPrimitive:
		return w.injectLinkLocked(ctx, p)
	case faults.RDMAPrimitive:
		now := func() time.Duration { return w.scale.mooncake(time.Since(w.start)) }
		heal := w.rdma.Node(p.Node).Arm(now(), p)
		return func(context.Context) error { heal(now()); return nil }, nil
	case faults.PortRacePrimitive:
		w.setPortRace(true)
		return func(context.Context) error { w.setPortRace(false); return nil }, nil
	case faults.PortPrimitive:
		w.netMu.Lock()
		w.held[p.Port] = true
		w.netMu.Unlock()
		return func(context.Context) error {
			w.netMu.Lock()
			delete(w.held, p.Port)
			w.netMu.Unlock()
			return nil
		}, nil
	case faults.AnswerPrimitive:
		h := w.metaHandler
		h.SetWrong(func(method, key string) (int, string, bool) { return p.Status, p.Body, p.Matches(method, key) })
		return func(context.Context) error { h.SetWrong(nil); return nil }, nil
	default:
		return nil, engine.Unsupportedf("fake engine: %s: %T is not served", f, p)
	}
}

// injectLinkLocked puts the fault's toxic on every node's proxy to the
// target.
func (w *World) injectLinkLocked(ctx context.Context, p faults.LinkPrimitive) (func(context.Context) error, error) {
	// Toxics act in wall time; the fault's durations are Mooncake time.
	var heals []func(context.Context) error
	wf := w.scale.toxic(p.Fault)
	for _, l := range w.linksTo(p.Target) {
		h, err := w.inj.Inject(ctx, l, wf)
		if err != nil {
			return nil, fmt.Errorf("fake engine: %w", err)
		}
		heals = append(heals, h)
	}
	return func(ctx context.Context) error {
		var errs []error
		for _, h := range heals {
			errs = append(errs, h(ctx))
		}
		return errors.Join(errs...)
	}, nil
}

// Clear is the world's schedule.Clear.
func (in injector) Clear(ctx context.Context) error {
	w := in.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return fmt.Errorf("fake engine: clear faults: world closed")
	}
	w.faulted.clear()
	w.netMu.Lock()
	clear(w.held)
	w.netMu.Unlock()
	var errs []error
	errs = append(errs, w.inj.HealAll(ctx))
	if w.ctr != nil {
		errs = append(errs, w.clearContainers(ctx))
	}
	if w.masterSrv != nil {
		if w.masterUp {
			w.masterSrv.Resume()
			if w.masterSrv6 != nil {
				w.masterSrv6.Resume()
			}
		}
		errs = append(errs, w.startMasterLocked(ctx))
	}
	if w.metaHandler != nil {
		w.metaHandler.SetWrong(nil)
	}
	w.rdma.HealAll()
	if w.metaSrv != nil && w.metaUnbound {
		// The port freed: nothing listens on it until the master starts
		// again (its server never bound).
		errs = append(errs, w.stopMetaLocked())
		w.dropHeldMetadataLocked()
	} else if w.metaSrv != nil {
		w.metaHandler.Resume()
		errs = append(errs, w.startMetaLocked(ctx))
	}
	if w.etcd != nil {
		errs = append(errs, w.startMetaLocked(ctx))
	}
	if w.client != nil {
		if w.client.up {
			w.client.srv.Resume()
		}
		errs = append(errs, w.startClientLocked(ctx))
	}
	return errors.Join(errs...)
}

// wallTimer is the scheduler's timer: Mooncake time, scaled to wall time.
type wallTimer struct {
	start time.Time
	s     scale
}

func (t wallTimer) Now() time.Duration { return t.s.mooncake(time.Since(t.start)) }

func (t wallTimer) At(at time.Duration, _ string, fn func()) func() {
	d := t.s.wall(at) - time.Since(t.start)
	tm := time.AfterFunc(max(d, 0), fn)
	return func() { tm.Stop() }
}

func (wallTimer) Virtual() bool { return false }
