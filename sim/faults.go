package sim

import (
	"context"

	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/sim/metadata"
	"github.com/mooncake-faultlab/faultlab/sim/netsim"
)

// Arm implements engine.World: the scheduler turns each fault into
// kernel events (start at At, heal at At+For).
func (w *World) Arm(ctx context.Context, fs []faults.Fault) error { return w.sched.Arm(ctx, fs) }

// ClearFaults implements engine.World: pending fault events are cancelled,
// links healed, and every server brought back up (a stopped one starts
// fresh).
func (w *World) ClearFaults(ctx context.Context) error { return w.sched.Clear(ctx) }

// injector is the sim's fault primitive for the scheduler.
type injector struct{ w *World }

// Check implements schedule.Injector: the sim can inject every fault.
func (injector) Check(faults.Fault) error { return nil }

// Inject implements schedule.Injector: a link fault is a netsim toxic on
// every node's link to its target; a process fault acts on the server
// model.
func (in injector) Inject(_ context.Context, f faults.Fault) (func(context.Context) error, error) {
	w := in.w
	if to := f.LinkTarget(); to != "" {
		id, err := w.net.Add(netsim.Any, to, f)
		if err != nil {
			return nil, err
		}
		return func(context.Context) error { w.net.Remove(id); return nil }, nil
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
	if w.spec.Master != nil && w.masterState != running {
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
			w.metadata, w.metadataState = metadata.New(false), running
		}
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

// process performs a process action on a server.
func (w *World) process(target, action string) {
	ctx := context.Background()
	switch target {
	case "master":
		if w.spec.Master == nil {
			return
		}
		switch action {
		case "stop":
			w.masterState = stopped
		case "start":
			if w.masterState == stopped {
				w.startMaster()
			}
		case "restart":
			w.startMaster() // all state lost
		case "pause":
			if w.masterState == running {
				w.masterState = paused
			}
		case "resume":
			if w.masterState == paused {
				w.masterState = running
			}
		}
	case "metadata":
		if w.spec.Metadata != "http" {
			return
		}
		switch action {
		case "stop":
			w.metadataState = stopped
		case "start":
			if w.metadataState == stopped {
				w.metadata, w.metadataState = metadata.New(false), running
			}
		case "restart":
			w.metadata, w.metadataState = metadata.New(false), running
		case "pause":
			w.metadataState = paused
		case "resume":
			w.metadataState = running
		}
	case "client":
		if w.spec.Client == nil {
			return
		}
		switch action {
		case "stop":
			w.clientState, w.standalone = stopped, nil
		case "start":
			if w.clientState == stopped {
				w.startStandalone(ctx)
			}
		case "restart":
			w.startStandalone(ctx)
		case "pause":
			w.clientState = paused
		case "resume":
			w.clientState = running
		}
	}
}
