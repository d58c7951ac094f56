package realengine

import (
	"context"
	"syscall"

	"github.com/mooncake-faultlab/faultlab/engine"
)

var _ engine.TEProcess = (*Process)(nil)

// NewTransferEngine implements engine.TEProcess: mooncake.engine.TransferEngine()
// in the driver.
func (p *Process) NewTransferEngine(ctx context.Context) (engine.TransferEngine, error) {
	var h int
	if err := p.d.call(ctx, "new_te", nil, &h); err != nil {
		return nil, err
	}
	return &TransferEngine{d: p.d, h: h}, nil
}

// Pause implements engine.TEProcess: SIGSTOP to the driver's group.
func (p *Process) Pause(context.Context) error { return p.d.p.signal(syscall.SIGSTOP) }

// Resume implements engine.TEProcess: SIGCONT.
func (p *Process) Resume(context.Context) error { return p.d.p.signal(syscall.SIGCONT) }

// TransferEngine is one mooncake.engine.TransferEngine in a driver.
type TransferEngine struct {
	d *driver
	h int
}

func (t *TransferEngine) intCall(ctx context.Context, op string, fields map[string]any) (int, error) {
	fields["te"] = t.h
	var r int
	err := t.d.call(ctx, op, fields, &r)
	return r, err
}

// Initialize implements engine.TransferEngine.
func (t *TransferEngine) Initialize(ctx context.Context, localHostname, metadataServer, protocol, deviceName string) (int, error) {
	return t.intCall(ctx, "te_initialize", map[string]any{"local_hostname": localHostname, "metadata_server": metadataServer, "protocol": protocol, "device_name": deviceName})
}

// RPCPort implements engine.TransferEngine.
func (t *TransferEngine) RPCPort(ctx context.Context) (int, error) {
	return t.intCall(ctx, "te_rpc_port", map[string]any{})
}

// RegisterMemory implements engine.TransferEngine.
func (t *TransferEngine) RegisterMemory(ctx context.Context, ptr uint64, size int64) (int, error) {
	return t.intCall(ctx, "te_register_memory", map[string]any{"ptr": ptr, "size": size})
}

// TransferSyncWrite implements engine.TransferEngine.
func (t *TransferEngine) TransferSyncWrite(ctx context.Context, target string, local, peer uint64, length int64, batch bool) (int, error) {
	return t.intCall(ctx, "te_transfer_sync_write", map[string]any{"target": target, "local": local, "peer": peer, "length": length, "batch": batch})
}
