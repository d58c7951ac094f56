package sim

import (
	"context"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/engine/schedule"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/sim/netsim"
)

// World embeds the engine/schedule Scheduler (Arm, ClearFaults): each
// fault becomes kernel events (start at At, heal at At+For); this is its
// injector.

// Arm implements engine.World.Arm: the faults lowered and checked against
// this world (schedule.Lower), then scheduled on the kernel's clock.
func (w *World) Arm(ctx context.Context, fs []faults.Fault) error {
	ps, err := schedule.Lower(fs, injector{w}.Capabilities(), injector{w}.Check)
	if err == nil {
		err = w.Scheduler.Arm(ctx, ps)
	}
	return err
}

// injector is the sim's fault primitive for the scheduler.
type injector struct{ w *World }

// Check vets a lowered fault in this world (schedule.Lower): the sim can inject every primitive;
// what it does not model of one is a skip.
func (in injector) Check(p faults.Primitive) error {
	f := p.Source()
	switch p := p.(type) {
	case faults.ContainerPrimitive:
		return in.w.containerCheck(p)
	case faults.ProcessPrimitive:
		if err := in.w.vanishCheck(p); err != nil {
			return err
		}
		return in.w.haCheck(p)
	case faults.LinkPrimitive:
		return nil
	case faults.RDMAPrimitive:
		if why := te.RDMAUnsupported(p, in.w.nodes, in.w.profile); why != "" {
			return engine.Unsupportedf("sim: %s", why)
		}
		return nil
	case faults.PortPrimitive, faults.PortRacePrimitive, faults.OffloadFilesPrimitive:
		return nil
	case faults.TEMetadataRacePrimitive:
		return nil
	case faults.AnswerPrimitive:
		if in.w.spec.Metadata != "http" && in.w.spec.Metadata != "master" {
			return engine.Unsupportedf("sim: %s: the topology has no HTTP metadata server (metadata %q)", f, in.w.spec.Metadata)
		}
		return nil
	default:
		return engine.Unsupportedf("sim: %s: %T is not modelled", f, p)
	}
}

// Inject is the world's schedule.Inject: a link primitive is a netsim toxic
// on every node's link to its target; a process primitive acts on the
// server model; a container primitive on the modelled containers.
func (in injector) Inject(_ context.Context, p faults.Primitive) (func(context.Context) error, error) {
	w := in.w
	switch p := p.(type) {
	case faults.ContainerPrimitive:
		return w.containerInject(p)
	case faults.LinkPrimitive:
		eff, err := p.Effect()
		if err != nil {
			return nil, err
		}
		id := w.net.Add(netsim.Any, p.Target, eff)
		if p.Target == "master" && eff.Refuses() && w.ha == nil {
			// toxiproxy disables the proxy: it closes the connections it carries.
			w.masterConnsClosed()
		}
		return func(context.Context) error { w.net.Remove(id); return nil }, nil
	case faults.RDMAPrimitive:
		heal := w.rdma.Node(p.Node).Arm(w.k.Now(), p)
		return func(context.Context) error { heal(w.k.Now()); return nil }, nil
	case faults.AnswerPrimitive:
		w.answer = &p
		return func(context.Context) error { w.answer = nil; return nil }, nil
	case faults.OffloadFilesPrimitive:
		w.disk.RemoveAll(OffloadDir)
		return nil, nil
	case faults.PortPrimitive:
		w.held[p.Port] = true
		return func(context.Context) error { delete(w.held, p.Port); return nil }, nil
	case faults.TEMetadataRacePrimitive:
		heal := w.armMetadataRace(p)
		return func(context.Context) error { return heal() }, nil
	case faults.PortRacePrimitive:
		w.portRace = true
		return func(context.Context) error { w.portRace = false; return nil }, nil
	case faults.ProcessPrimitive:
		if w.ha != nil && (p.Target == "master" || p.Target == faults.TargetMasterLeader) {
			// The undo acts on the master the fault hit, not on whoever leads then.
			i := w.haIndex(p.Target)
			w.haProcess(i, p.Action)
			if p.Undo != "" {
				return func(context.Context) error { w.haProcess(i, p.Undo); return nil }, nil
			}
			return nil, nil
		}
		w.process(p.Target, p.Action)
		if p.Undo != "" {
			return func(context.Context) error { w.process(p.Target, p.Undo); return nil }, nil
		}
		return nil, nil
	default:
		return nil, engine.Unsupportedf("sim: %s: %T is not modelled", p.Source(), p)
	}
}

// Clear is the world's schedule.Clear: links healed, servers up again.
func (in injector) Clear(ctx context.Context) error {
	w := in.w
	w.net.Clear()
	// The partitions' toxics went with the net's: the parties are on the
	// network again (docker network connect).
	clear(w.parts)
	w.answer = nil
	clear(w.held)
	w.rdma.HealAll()
	clear(w.metadataRace)
	if w.ha != nil {
		for i := range w.ha.ms {
			w.haStart(i)
		}
	} else if w.spec.Master != nil && w.masterState != running {
		if w.masterState == paused {
			w.masterState = running
		} else {
			// In a container world a new container (realengine:
			// startServer): the memory limit went with the old one.
			w.masterMemLimit, w.masterOOMKilled = 0, false
			w.startMaster()
		}
	}
	if w.spec.Metadata == "http" && w.metadataState != running {
		if w.metadataState == paused {
			w.metadataState = running
		} else {
			w.startHTTPMetadata()
		}
	}
	if w.spec.Metadata == "etcd" {
		w.metadataState = running
	}
	if w.spec.Client != nil && w.clientState != running {
		if w.clientState == paused {
			w.clientState = running
			w.thaw()
		} else {
			w.startStandalone(ctx)
		}
	}
	return nil
}
