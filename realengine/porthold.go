package realengine

import (
	"context"
	"errors"
	"fmt"

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
		heal := func(context.Context) error { release(); return nil }
		w.mu.Lock()
		w.portHeals = append(w.portHeals, heal)
		w.mu.Unlock()
		return heal, nil
	}, nil
}

// releaseHeldPorts closes every held port (Clear, Close); a port healed already
// is closed once.
func (w *World) releaseHeldPorts(ctx context.Context) error {
	w.mu.Lock()
	heals := w.portHeals
	w.portHeals = nil
	w.mu.Unlock()
	var errs []error
	for _, h := range heals {
		if err := h(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
