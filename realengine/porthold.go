package realengine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
)

// portAction holds p.Port with a listener of the harness's own on every
// address (":port", IPv4 and IPv6): Mooncake's bind of it, asio's with
// SO_REUSEADDR included, fails with EADDRINUSE while it listens. Nothing
// is accepted; healing (or Clear, or Close) closes it.
func (w *World) portAction(p faults.PortPrimitive) (inject, error) {
	f := p.Fault
	if w.ctr != nil {
		return nil, engine.Unsupportedf("real engine: %s: the port is held on the host, not in a container world's network namespaces", f)
	}
	return func(context.Context) (func(context.Context) error, error) {
		ln, err := net.Listen("tcp", fmt.Sprintf(":%d", p.Port))
		if err != nil {
			return nil, fmt.Errorf("real engine: %s: hold port %d: %w", f, p.Port, err)
		}
		var once sync.Once
		heal := func(context.Context) error {
			var err error
			once.Do(func() { err = ln.Close() })
			return err
		}
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
