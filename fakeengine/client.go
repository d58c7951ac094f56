package fakeengine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/fakeengine/servers"
	"github.com/mooncake-faultlab/faultlab/models/client"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
)

// clientNode is the host name of the standalone mooncake_client's process
// (its links are client→master, client→metadata, client→<node>, and
// <node>→client for dummies' RPC, <node>→client:te for transfers).
const clientNode = "client"

// clientProc is the standalone mooncake_client: the models/client Standalone
// model served over the wire protocol.
type clientProc struct {
	proc  *Process
	model *client.Standalone
	srv   *servers.RealClientServer
	addr  string // canonical host:port (the server's real listener)
	up    bool
	// stream names the model's RNG stream as sim does
	// ("mooncake_client@<Mooncake time of start, ns>").
	stream string
}

// launchClient starts mooncake_client after the master and metadata
// server: links first (it dials them through its own proxies), then the
// model's startup, then its RPC server.
func (w *World) launchClient(ctx context.Context) error {
	if err := w.startDataServer(ctx, clientNode); err != nil {
		return err
	}
	if w.masterAddr != "" {
		if err := w.link(clientNode, "master", w.masterAddr); err != nil {
			return err
		}
	}
	if w.metaAddr != "" {
		if err := w.link(clientNode, "metadata", w.metaAddr); err != nil {
			return err
		}
	}
	for _, n := range w.spec.Nodes {
		if err := w.link(clientNode, n.Name, w.dataSrv[n.Name].Addr()); err != nil {
			return err
		}
		if err := w.link(n.Name, clientNode+":te", w.dataSrv[clientNode].Addr()); err != nil {
			return err
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.client = &clientProc{}
	if err := w.startClientLocked(ctx); err != nil {
		return err
	}
	for _, n := range w.spec.Nodes {
		if err := w.link(n.Name, clientNode, w.client.addr); err != nil {
			return err
		}
	}
	return nil
}

// startClientLocked runs mooncake_client's startup (a fresh process:
// state lost) and serves it on its port. A failed startup is
// LOG(FATAL): the process is gone and its port refuses connections.
func (w *World) startClientLocked(ctx context.Context) error {
	c := w.client
	if c.up {
		return nil
	}
	if c.proc != nil {
		c.proc.stop()
	}
	c.proc = w.newProcessLocked(engine.NodeSpec{Name: clientNode, RDMA: w.spec.Client.RDMA}, nil)
	c.stream = fmt.Sprintf("mooncake_client@%d", int64(w.scale.mooncake(time.Since(w.start))))
	if !w.launched {
		c.stream = "mooncake_client@0" // at Launch, as sim's virtual time 0
	}
	listen := w.bindHost() + ":0"
	if c.addr != "" {
		listen = c.addr // same port again: every proxy's upstream stays valid
	}
	srv := servers.NewRealClientServer(&w.gate, clientService{c: c}, &w.shms, w.logger)
	if err := srv.Listen(ctx, listen); err != nil {
		return fmt.Errorf("fake engine: mooncake_client: %w", err)
	}
	c.srv, c.addr = srv, srv.Addr()
	meta := "P2PHANDSHAKE"
	if w.metaAddr != "" {
		meta = "http://" + w.metaAddr + "/metadata"
	}
	_, port, _ := strings.Cut(c.addr, ":")
	spec := client.StandaloneSpec{
		Host: "127.0.0.1", Port: port, MetadataServer: meta, MasterServerAddress: w.masterAddr,
		Protocol: w.spec.Client.Protocol, GlobalSegmentSize: w.spec.Client.GlobalSegmentSize, DeviceName: w.spec.Client.DeviceNames,
		VmemHeadroom: w.spec.Client.VmemHeadroomBytes,
	}
	if spec.Protocol == "" {
		spec.Protocol = "tcp"
	}
	if spec.GlobalSegmentSize == 0 {
		spec.GlobalSegmentSize = 4 << 30 // --global_segment_size default "4 GB"
	}
	// The startup may retry a dead master for a while: Close (w.ctx) stops it.
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(w.ctx, cancel)()
	w.gate.Lock()
	m, err := client.StartStandalone(sctx, c.proc.deps("client", c.stream), spec)
	w.gate.Unlock()
	if err != nil {
		if _, ok := engine.AsProcessDied(err); ok {
			// mooncake_client died at startup: nothing listens on its port.
			w.trace.Record("client", "log", "FATAL", "mooncake_client exited: "+err.Error())
			_ = srv.Close()
			return nil
		}
		_ = srv.Close()
		return fmt.Errorf("fake engine: mooncake_client startup: %w", err)
	}
	w.gate.Lock()
	c.model = m
	w.nameEndpoint(m, nil)
	w.gate.Unlock()
	c.up = true
	_ = c.proc.beat(&heartbeat{}, func(ctx context.Context) time.Duration {
		if !m.Pinging() {
			return 0
		}
		return m.Heartbeat(ctx, nil)
	})
	return nil
}

func (w *World) stopClientLocked() error {
	c := w.client
	if c == nil || !c.up {
		return nil
	}
	c.up = false
	err := c.srv.Close()
	c.proc.stop()
	if err != nil {
		return fmt.Errorf("fake engine: stop mooncake_client: %w", err)
	}
	return nil
}

// clientService forwards to the current Standalone model (nil until its
// startup finished; the server only listens after that).
type clientService struct{ c *clientProc }

func (s clientService) svc() (client.RealClientService, error) {
	if s.c.model == nil {
		return nil, fmt.Errorf("mooncake_client not started")
	}
	return s.c.model, nil
}

func (s clientService) ServiceReady(ctx context.Context) error {
	m, err := s.svc()
	if err != nil {
		return err
	}
	return m.ServiceReady(ctx)
}

func (s clientService) RegisterShm(ctx context.Context, dummy string, shm hostmem.Shm, isLocal bool) (int, error) {
	m, err := s.svc()
	if err != nil {
		return 0, err
	}
	return m.RegisterShm(ctx, dummy, shm, isLocal)
}

func (s clientService) Ping(ctx context.Context, dummy string) error {
	m, err := s.svc()
	if err != nil {
		return err
	}
	return m.Ping(ctx, dummy)
}

func (s clientService) PutFrom(ctx context.Context, dummy, key string, ptr uint64, size int64, b *client.BufferBatch) (int, error) {
	m, err := s.svc()
	if err != nil {
		return 0, err
	}
	return m.PutFrom(ctx, dummy, key, ptr, size, b)
}

func (s clientService) GetInto(ctx context.Context, dummy, key string, ptr uint64, size int64, b *client.BufferBatch) (int, error) {
	m, err := s.svc()
	if err != nil {
		return 0, err
	}
	return m.GetInto(ctx, dummy, key, ptr, size, b)
}

func (s clientService) IsExist(ctx context.Context, key string) (int, error) {
	m, err := s.svc()
	if err != nil {
		return 0, err
	}
	return m.IsExist(ctx, key)
}
