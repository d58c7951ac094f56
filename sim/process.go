package sim

import (
	"context"
	"fmt"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/client"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/sim/kernel"
)

// Process is an SGLang scheduler process on a node.
type Process struct {
	w      *World
	node   string
	id     int
	env    map[string]string
	mem    *hostmem.Space
	stores int
	all    []*Store
	dead   error // set once the process aborted or closed
	// imported: mooncake.store was imported (its first store, or
	// MooncakeHostMemAllocator for a mooncake-shm pool).
	imported bool
	// tes are its TransferEngine objects (te step).
	tes []*te.Py
	// etcdIdle: the GOAWAY of its store etcd client, once scheduled
	// (etcdkeepalive.go).
	etcdIdle *kernel.Event
}

// importStore is `from mooncake.store import …`: the first one runs the
// transfer engine's globalConfig(), which may exit the process.
func (p *Process) importStore() error {
	if p.imported {
		return nil
	}
	if err := p.w.importError(mooncake.ELFStore); err != nil {
		return err
	}
	p.imported = true
	log := mlog.Trace{T: p.w.tr, Source: "mooncake:" + p.node, Min: mlog.MinLevel(p.env)}
	if err := client.LoadGlobalConfig(p.w.profile, p.env, log); err != nil {
		p.dead = err
		return err
	}
	return nil
}

// Node implements engine.Process.
func (p *Process) Node() string { return p.node }

// Memory exposes the process address space (tests).
func (p *Process) Memory() *hostmem.Space { return p.mem }

// NewStore implements engine.Process: MooncakeDistributedStore().
func (p *Process) NewStore(context.Context) (engine.Store, error) {
	if p.dead != nil {
		return nil, p.dead
	}
	p.stores++
	source := "mooncake:" + p.node
	stream := fmt.Sprintf("proc:%s#%d/store#%d", p.node, p.id, p.stores)
	d := p.w.deps(p.node, p.env, source, p.mem, stream)
	d.StoreEtcdIdle = p.storeEtcdIdle
	if err := p.importStore(); err != nil {
		return nil, err
	}
	s := client.NewStore(d, fmt.Sprintf("%s#%d/%d", p.node, p.id, p.stores), p.hooks())
	if dp, ok := d.Data.(dataPath); ok {
		dp.self.engine = func() *te.Engine {
			if rc := s.Real(); rc != nil {
				return rc.Engine()
			}
			return nil
		}
	}
	p.all = append(p.all, s)
	return s, nil
}

// Alloc implements engine.Process.
func (p *Process) Alloc(_ context.Context, allocator string, size int64) (engine.Buffer, error) {
	p.w.k.RunUntil(p.w.k.Now())
	if p.dead != nil {
		return engine.Buffer{}, p.dead
	}
	switch allocator {
	case engine.AllocMooncakeShm:
		if err := p.importStore(); err != nil {
			return engine.Buffer{}, err
		}
	case engine.AllocDefault, engine.AllocHugepage, engine.AllocCUDA:
	default:
		return engine.Buffer{}, fmt.Errorf("sim: unknown allocator %q (want %s, %s, %s or %s)", allocator, engine.AllocDefault, engine.AllocHugepage, engine.AllocMooncakeShm, engine.AllocCUDA)
	}
	b, err := p.mem.Alloc(allocator, size)
	if err != nil {
		if pe := hostmem.PyAllocError(allocator, err); pe != nil {
			if d, ok := engine.AsProcessDied(pe); ok {
				p.dead = d // the OOM killer took the process
			}
			return b, pe
		}
		return b, fmt.Errorf("sim: alloc %s on %s: %w", allocator, p.node, err)
	}
	return b, nil
}

// Close implements engine.Process: the process exits; its clients stop
// pinging without unmounting (the master expires them after client_ttl).
func (p *Process) Close(context.Context) error {
	for _, s := range p.all {
		s.Real().Kill()
		if s.Dummy() != nil {
			s.Dummy().Kill()
		}
	}
	if p.dead == nil {
		p.dead = fmt.Errorf("sim: process on %s is closed", p.node)
	}
	// Its transfer engines are gone with it: a replica on a segment the
	// master still lists (its unmount failed during a master outage) can
	// no longer be reached (real 0.3.9: "Failed to open segment for
	// endpoint=...", -800, until client_ttl expires the segment).
	p.w.unregister(p.mem)
	delete(p.w.paused, p.mem)
	for _, t := range p.tes {
		t.Engine().ReleasePorts()
	}
	return nil
}

// Store is one MooncakeDistributedStore object (client.Store: a real
// client until setup_dummy() turns it into a dummy client).
type Store = client.Store

// hooks run around every call of a store of this process.
func (p *Process) hooks() client.StoreHooks {
	return client.StoreHooks{
		// Fire events due now (faults armed at the current instant) and
		// report a dead process.
		Enter: func() (func(), error) {
			p.w.k.RunUntil(p.w.k.Now())
			return func() {}, p.dead
		},
		// A process abort kills the process; new TE endpoints and ping
		// threads are picked up.
		After: func(s *Store, err error) error {
			if d, ok := engine.AsProcessDied(err); ok {
				if p.w.containers {
					d = d.InContainer()
				}
				p.dead = d
				return d
			}
			if s.Dummy() != nil {
				p.w.watch(nil, s.Dummy(), p.mem)
				return err
			}
			p.w.register(s.Real(), p.node, p.mem)
			if s.Real().Pinging() {
				p.w.watch(s.Real(), nil, p.mem)
			}
			return err
		},
	}
}

var (
	_ engine.Process = (*Process)(nil)
	_ engine.Store   = (*Store)(nil)
)
