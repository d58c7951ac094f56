package realengine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/netport"
)

// portAction holds p.Port with a listener of the harness's own on every
// address (netport.Hold): Mooncake's bind of it, asio's with SO_REUSEADDR
// included, fails with EADDRINUSE while it listens. Healing (or Clear, or
// Close) lets go of it.
func (w *World) portAction(p faults.PortPrimitive) (inject, error) {
	f := p.Fault
	if w.ctr != nil {
		return nil, engine.Unsupportedf("real engine: %s: the port is held on the host, not in a container world's network namespaces", f)
	}
	return func(context.Context) (func(context.Context) error, error) {
		release, err := netport.Hold(p.Port)
		if err != nil {
			return nil, fmt.Errorf("real engine: %s: %w", f, err)
		}
		heal := func(context.Context) error {
			release()
			w.mu.Lock()
			delete(w.holding, p.Port)
			w.mu.Unlock()
			return nil
		}
		w.mu.Lock()
		w.holding[p.Port] = true
		w.portHeals = append(w.portHeals, heal)
		// The hold from the world's start is this fault's now: its heal
		// frees the port (netport counts the holds of one port).
		startHold := w.startHolds[p.Port]
		delete(w.startHolds, p.Port)
		w.mu.Unlock()
		if startHold != nil {
			startHold()
		}
		return heal, nil
	}, nil
}

// holdAtStart holds the world's HeldPorts before any server starts (a
// process world; engine.WorldSpec.HeldPorts), as another process on the
// host would: a master whose metadata port is one of them meets it taken.
func (w *World) holdAtStart() error {
	if w.ctr != nil {
		return nil // portAction's skip
	}
	for _, port := range w.spec.HeldPorts {
		release, err := netport.Hold(port)
		if err != nil {
			return fmt.Errorf("real engine: port %d held from the start: %w", port, err)
		}
		w.mu.Lock()
		w.startHolds[port], w.holding[port] = release, true
		w.portHeals = append(w.portHeals, func(context.Context) error { release(); return nil })
		w.mu.Unlock()
	}
	return nil
}

// releaseHeldPorts closes every held port (Clear, Close); a port healed already
// is closed once.
func (w *World) releaseHeldPorts(ctx context.Context) error {
	w.mu.Lock()
	heals := w.portHeals
	w.portHeals = nil
	clear(w.startHolds)
	clear(w.holding)
	w.mu.Unlock()
	var errs []error
	for _, h := range heals {
		if err := h(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// masterBindFailed reports whether p, the master of s, ended at start
// because another process holds one of its fixed HTTP ports (held by this
// world): the embedded metadata server's (topology.master.
// http_metadata_port; from 0.3.12 main() logs "Failed to start HTTP
// metadata server" at FATAL and aborts, REAL-FINDINGS §90) or the admin
// server's (topology.master.metrics_port; from 0.3.10.post2 "Failed to
// start master admin server" and exit 1, §135). It is the world's
// outcome, not a launch error: the master stays down, its proxies
// refusing, until Clear starts it.
func (w *World) masterBindFailed(s *server, p *proc) bool {
	ms := w.spec.Master
	if s.role != "master" || ms == nil || !p.Exited() {
		return false
	}
	for _, h := range []struct {
		name string
		port int
		line string
	}{
		{"metadata", ms.MetadataPort, "Failed to start HTTP metadata server"},
		{"metrics", ms.MetricsPort, "Failed to start master admin server"},
	} {
		if h.port != 0 && s.ports[h.name] == h.port && w.holdsPort(h.port) &&
			slices.ContainsFunc(p.Recent(), func(l string) bool { return strings.Contains(l, h.line) }) {
			return true
		}
	}
	return false
}

// holdsPort reports whether this world holds port now (from its start or
// by a port-held fault).
func (w *World) holdsPort(port int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.holding[port]
}
