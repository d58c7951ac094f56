package realengine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

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

// Pause implements engine.TEProcess: SIGSTOP to the driver's group, then
// wait until every thread of it is stopped. kill returns before they are:
// a transfer sent at once could still be served by an I/O thread (real
// 0.3.14, io/te-sync-transfer-timeout: the write after the pause 0).
func (p *Process) Pause(ctx context.Context) error {
	if err := p.d.p.signal(syscall.SIGSTOP); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for !allStopped(p.d.p.pid) {
		select {
		case <-ctx.Done():
			return fmt.Errorf("pause driver %s (pid %d): its threads did not stop: %w", p.node, p.d.p.pid, ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
	return nil
}

// allStopped: every thread of pid is in state T (stopped) per /proc.
func allStopped(pid int) bool {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, t.Name(), "stat"))
		if err != nil {
			continue // the thread exited
		}
		// "pid (comm) S ...": comm may hold spaces and parentheses.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 || i+2 >= len(b) || b[i+2] != 'T' {
			return false
		}
	}
	return true
}

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

// UnregisterMemory implements engine.TransferEngine.
func (t *TransferEngine) UnregisterMemory(ctx context.Context, ptr uint64) (int, error) {
	return t.intCall(ctx, "te_unregister_memory", map[string]any{"ptr": ptr})
}

// TransferSyncWrite implements engine.TransferEngine.
func (t *TransferEngine) TransferSyncWrite(ctx context.Context, target string, local, peer uint64, length int64, entries int) (int, error) {
	return t.intCall(ctx, "te_transfer_sync_write", map[string]any{"target": target, "local": local, "peer": peer, "length": length, "entries": entries})
}

// Stray implements engine.TEStranger: the harness is the stranger. It
// connects to the driver's handshake port on the loopback, writes payload,
// shuts its side and reads until the daemon closes (FIN, or RST when the
// daemon left bytes unread). A call after it flushes the daemon's lines
// into the run's log (each call waits for its stderr marker).
func (t *TransferEngine) Stray(ctx context.Context, port int, payload []byte) error {
	if t.d.p.ctr != nil {
		return engine.Unsupportedf("te stray: the driver runs in a container whose handshake port the harness does not reach")
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("te stray: connect to the handshake port %d: %w", port, err)
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	if _, err := c.Write(payload); err != nil {
		return fmt.Errorf("te stray: write to the handshake port %d: %w", port, err)
	}
	_ = c.(*net.TCPConn).CloseWrite()
	// EOF or a reset: the daemon is done with the connection.
	if _, err := io.Copy(io.Discard, c); err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("te stray: the daemon on port %d did not close the connection within 10 s", port)
	}
	_, err = t.RPCPort(ctx)
	return err
}
