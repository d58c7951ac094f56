package realengine

import (
	"context"
	"fmt"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/netport"
)

// vanishAction is process action vanish on an HA master: SIGKILL, then
// its RPC port blackholed (netport.Blackhole), so the clients' pooled
// connections read end of file and every later connect to the address
// waits out coro_rpc's connect timeout, as to a deleted pod's IP
// (Mooncake#3740). Its heal lets go of the port and starts the master
// again (it campaigns). A non-HA master sits behind toxiproxy, whose
// address the clients dial: vanishCheck makes vanish a skip there, and
// a silent address is the link fault's blackhole mode.
func (w *World) vanishAction(s *server) inject {
	return func(ctx context.Context) (func(context.Context) error, error) {
		if err := w.stopServer(ctx, s); err != nil {
			return nil, err
		}
		release, err := netport.Blackhole(s.ports["rpc"])
		if err != nil {
			return nil, fmt.Errorf("real engine: vanish %s: %w", s.role, err)
		}
		free := func(context.Context) error { release(); return nil }
		w.mu.Lock()
		w.portHeals = append(w.portHeals, free) // Clear and Close let go of it too
		w.mu.Unlock()
		return func(ctx context.Context) error {
			release()
			return w.ensureStarted(ctx, s)
		}, nil
	}
}

// vanishCheck: vanish is implemented for an HA master in a world of
// processes (a skip elsewhere).
func (w *World) vanishCheck(p faults.ProcessPrimitive) error {
	if p.Action != faults.Vanish || (w.spec.Master != nil && w.spec.Master.HA && w.ctr == nil) {
		return nil
	}
	return engine.Unsupportedf("real engine: %s: implemented for an HA master in a world of processes only", p.Fault)
}
