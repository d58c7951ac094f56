package realengine

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/mooncake-faultlab/faultlab/containers"
	"github.com/mooncake-faultlab/faultlab/faults"
)

// Capabilities is the world's, for schedule.Lower: links are toxiproxy proxies;
// container actions only when the parties run in containers.
func (in injector) Capabilities() faults.Capabilities {
	return faults.Capabilities{Toxiproxy: true, Containers: in.w.ctr != nil}
}

// containerAction injects a container fault on every target; the heal
// undoes it on every target (faults.ContainerUndo).
func (w *World) containerAction(p faults.ContainerPrimitive) (inject, error) {
	f := p.Fault
	type target struct {
		s    *server // a server role
		node string  // or a node's drivers
	}
	var ts []target
	w.mu.Lock()
	servers := make(map[string]*server, len(w.servers))
	for k, v := range w.servers {
		servers[k] = v
	}
	w.mu.Unlock()
	for _, t := range p.Targets {
		if s, ok := servers[t]; ok {
			ts = append(ts, target{s: s})
			continue
		}
		found := false
		for _, n := range w.spec.Nodes {
			found = found || n.Name == t
		}
		if !found {
			return nil, fmt.Errorf("real engine: %s: no party %q (master, metadata, client or a node)", f, t)
		}
		if p.Action == "restart" || p.Action == "start" || p.Action == "replace" {
			return nil, fmt.Errorf("real engine: %s: a node's SGLang process is not restarted by a fault (start a new one with a step)", f)
		}
		ts = append(ts, target{node: t})
	}
	do := func(ctx context.Context, action string) error {
		var errs []error
		for _, t := range ts {
			if t.s != nil {
				errs = append(errs, w.serverContainerAction(ctx, t.s, action, p.Bytes))
				continue
			}
			for _, party := range w.driverParties(t.node) {
				errs = append(errs, partyAction(ctx, party, action, p.Bytes))
			}
		}
		return errors.Join(errs...)
	}
	return func(ctx context.Context) (func(context.Context) error, error) {
		return faults.InjectContainer(ctx, p, do)
	}, nil
}

// serverContainerAction acts on a server's container. Stopping or killing
// goes through stopServer, so its proxies refuse as a closed port would.
func (w *World) serverContainerAction(ctx context.Context, s *server, action string, bytes int64) error {
	w.mu.Lock()
	p, down := s.p, s.down
	w.mu.Unlock()
	switch action {
	case "stop":
		if down {
			return nil
		}
		// docker stop: SIGTERM, then the kill after a grace.
		_ = p.ctr.Signal(ctx, syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(2 * time.Second):
		case <-ctx.Done():
		}
		return w.doProcess(ctx, s, "stop")
	case "kill":
		if down {
			return nil
		}
		return w.doProcess(ctx, s, "stop")
	case "start", "restart", "pause":
		return w.doProcess(ctx, s, action)
	case "replace":
		if down {
			return w.doProcess(ctx, s, "start")
		}
		return w.replaceServer(ctx, s)
	case "unpause":
		return w.doProcess(ctx, s, "resume")
	}
	if down {
		return fmt.Errorf("real engine: container %s of %s: it is stopped", action, s.role)
	}
	return partyAction(ctx, p.ctr, action, bytes)
}

// partyAction is an action on one running container.
func partyAction(ctx context.Context, p *containers.Party, action string, bytes int64) error {
	if err := p.Act(ctx, action, bytes); err != nil {
		return fmt.Errorf("real engine: %w", err)
	}
	return nil
}

// driverParties are the containers of a node's SGLang processes.
func (w *World) driverParties(node string) []*containers.Party {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []*containers.Party
	for _, p := range w.procs {
		if p.node == node && p.d.p.ctr != nil {
			out = append(out, p.d.p.ctr)
		}
	}
	return out
}

// replaceServer starts a new container for s before the old one is
// removed, as Kubernetes replaces a pod: the old one, frozen meanwhile,
// keeps its address, so the new one gets another (Docker hands out the
// lowest free address). Then the old one is killed and removed.
func (w *World) replaceServer(ctx context.Context, s *server) error {
	w.mu.Lock()
	old := s.p
	w.mu.Unlock()
	if err := old.ctr.Pause(ctx); err != nil {
		return err
	}
	err := w.startServer(ctx, s)
	_ = old.ctr.Kill(ctx)
	return errors.Join(err, old.stop(ctx, 0))
}
