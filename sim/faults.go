package sim

import (
	"context"

	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/sim/netsim"
)

// World embeds the faults/schedule Scheduler (Arm, ClearFaults): each
// fault becomes kernel events (start at At, heal at At+For); this is its
// injector.

// injector is the sim's fault primitive for the scheduler.
type injector struct{ w *World }

// Check implements schedule.Injector: the sim can inject every fault.
func (in injector) Check(f faults.Fault) error {
	if f.Kind == faults.Container {
		return in.w.containerCheck(f)
	}
	return in.w.haCheck(f)
}

// Inject implements schedule.Injector: a link fault is a netsim toxic on
// every node's link to its target; a process fault acts on the server
// model.
func (in injector) Inject(_ context.Context, f faults.Fault) (func(context.Context) error, error) {
	w := in.w
	if f.Kind == faults.Container {
		return w.containerInject(f)
	}
	if f.Kind == faults.ClientDown {
		action := faults.ClientDownAction(f.Mode) // as on the real engine
		w.process("client", action)
		undo := faults.Undo(action)
		return func(context.Context) error { w.process("client", undo); return nil }, nil
	}
	if to := f.LinkTarget(); to != "" {
		id, err := w.net.Add(netsim.Any, to, f)
		if err != nil {
			return nil, err
		}
		if to == "master" && f.Mode == faults.ModeRefuse && w.ha == nil {
			// toxiproxy disables the proxy: it closes the connections it carries.
			w.masterConnsClosed()
		}
		return func(context.Context) error { w.net.Remove(id); return nil }, nil
	}
	if w.ha != nil && (f.Target == "master" || f.Target == faults.TargetMasterLeader) {
		// The undo acts on the master the fault hit, not on whoever leads then.
		i := w.haIndex(f.Target)
		w.haProcess(i, f.Action)
		if undo := faults.Undo(f.Action); undo != "" {
			return func(context.Context) error { w.haProcess(i, undo); return nil }, nil
		}
		return nil, nil
	}
	w.process(f.Target, f.Action)
	if undo := faults.Undo(f.Action); undo != "" {
		return func(context.Context) error { w.process(f.Target, undo); return nil }, nil
	}
	return nil, nil
}

// Clear implements schedule.Injector: links healed, servers up again.
func (in injector) Clear(ctx context.Context) error {
	w := in.w
	w.net.Clear()
	if w.ha != nil {
		for i := range w.ha.ms {
			w.haStart(i)
		}
	} else if w.spec.Master != nil && w.masterState != running {
		if w.masterState == paused {
			w.masterState = running
		} else {
			w.startMaster()
		}
	}
	if w.spec.Metadata == "http" && w.metadataState != running {
		if w.metadataState == paused {
			w.metadataState = running
		} else {
			w.metadata, w.metadataState = w.newHTTPMetadata(), running
		}
	}
	if w.spec.Metadata == "etcd" {
		w.metadataState = running
	}
	if w.spec.Client != nil && w.clientState != running {
		if w.clientState == paused {
			w.clientState = running
		} else {
			w.startStandalone(ctx)
		}
	}
	return nil
}
