package sim

import (
	"context"
	"fmt"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// NewTransferEngine implements engine.TEProcess: TransferEngine() in the
// process, the transfer engine model's Python binding (te.Py).
func (p *Process) NewTransferEngine(context.Context) (engine.TransferEngine, error) {
	p.w.k.RunUntil(p.w.k.Now())
	if p.dead != nil {
		return nil, p.dead
	}
	// import mooncake.engine
	if err := p.w.importError(mooncake.ELFEngine); err != nil {
		return nil, err
	}
	p.tes = append(p.tes, nil)
	stream := fmt.Sprintf("proc:%s#%d/te#%d", p.node, p.id, len(p.tes))
	d := p.w.deps(p.node, p.env, "mooncake:"+p.node, p.mem, stream)
	py := te.NewPy(te.Config{Profile: d.Profile, Host: d.Host, Env: d.Env, Log: d.Log, Metadata: d.Metadata, Etcd: d.Etcd, Ports: d.Ports, PortRand: d.PortRand}, d.Data, d.Clock)
	p.tes[len(p.tes)-1] = py
	if dp, ok := d.Data.(dataPath); ok {
		dp.self.engine = py.Engine
	}
	return &transferEngine{p: p, py: py}, nil
}

// Pause implements engine.TEProcess: SIGSTOP. Its transfer engines'
// endpoints still accept connections (the kernel does) and never answer.
func (p *Process) Pause(context.Context) error {
	if p.w.paused == nil {
		p.w.paused = map[*hostmem.Space]bool{}
	}
	p.w.paused[p.mem] = true
	return nil
}

// Resume implements engine.TEProcess: SIGCONT.
func (p *Process) Resume(context.Context) error {
	delete(p.w.paused, p.mem)
	p.w.thaw()
	return nil
}

// transferEngine is one TransferEngine object of a sim process.
type transferEngine struct {
	p  *Process
	py *te.Py
}

// enter fires the events due now and reports a dead process.
func (t *transferEngine) enter() error {
	t.p.w.k.RunUntil(t.p.w.k.Now())
	return t.p.dead
}

func (t *transferEngine) Initialize(ctx context.Context, localHostname, metadataServer, protocol, deviceName string) (int, error) {
	if err := t.enter(); err != nil {
		return 0, err
	}
	rc := t.py.Initialize(ctx, localHostname, metadataServer, protocol, deviceName)
	if rc == 0 {
		t.p.w.registerTE(t.py.Engine(), t.p.node, t.p.mem, mlog.Trace{T: t.p.w.tr, Source: "mooncake:" + t.p.node, Min: mlog.MinLevel(t.p.env)})
	}
	return rc, nil
}

func (t *transferEngine) RPCPort(context.Context) (int, error) {
	if err := t.enter(); err != nil {
		return 0, err
	}
	return t.py.RPCPort(), nil
}

func (t *transferEngine) RegisterMemory(ctx context.Context, ptr uint64, size int64) (int, error) {
	if err := t.enter(); err != nil {
		return 0, err
	}
	if t.py.Engine().NVLinkIntra() {
		return 0, engine.Unsupportedf("te register: the intra-node NVLink transport's memory path is not modelled")
	}
	if err := t.metadataRaced(); err != nil {
		return 0, err
	}
	return t.py.RegisterMemory(ctx, ptr, size), nil
}

func (t *transferEngine) UnregisterMemory(ctx context.Context, ptr uint64) (int, error) {
	if err := t.enter(); err != nil {
		return 0, err
	}
	return t.py.UnregisterMemory(ctx, ptr), nil
}

func (t *transferEngine) TransferSyncWrite(ctx context.Context, target string, local, peer uint64, length int64, entries int) (int, error) {
	if err := t.enter(); err != nil {
		return 0, err
	}
	if t.py.Engine().NVLinkIntra() {
		return 0, engine.Unsupportedf("te transfer: the intra-node NVLink transport's data path is not modelled")
	}
	rc, err := t.py.TransferSyncWrite(ctx, target, local, peer, length, entries)
	if _, died := engine.AsProcessDied(err); died {
		t.p.dead = err // its later calls find the process gone
	}
	return rc, err
}

// AllocateManagedBuffer implements engine.TEAllocator: the memory comes
// from the process's own allocators.
func (t *transferEngine) AllocateManagedBuffer(ctx context.Context, length int64) (uint64, error) {
	if err := t.enter(); err != nil {
		return 0, err
	}
	return t.py.AllocateManagedBuffer(ctx, length, func(alloc string, size int64) (uint64, error) {
		b, err := t.p.Alloc(ctx, alloc, size)
		return b.Ptr, err
	})
}

var (
	_ engine.TEProcess   = (*Process)(nil)
	_ engine.TEAllocator = (*transferEngine)(nil)
)

// Stray implements engine.TEStranger: the model's handshake daemon reads
// the stranger's bytes (te.Engine.ServeStray).
func (t *transferEngine) Stray(_ context.Context, _ int, payload []byte) error {
	if err := t.enter(); err != nil {
		return err
	}
	return t.py.Engine().ServeStray(payload)
}
