package fakeengine

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mooncake-faultlab/faultlab/fakeengine/wire"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/te"
)

// The TCP data path: each node runs a transfer endpoint (a wire server,
// service "te") that reads and writes the memory of the processes on that
// node; a transfer from tp0 to tp1 dials tp1's endpoint through the
// tp0→tp1 proxy. The model names endpoints by the TE address it bound
// (host:port in the world's port table), which resolves to the owner.

// transferTimeout bounds one transfer (MC_TRANSFER_TIMEOUT default 30 s).
const transferTimeout = 30 * time.Second

type dataReq struct {
	Endpoint string           `json:"endpoint"`
	Addr     uint64           `json:"addr"`
	Content  *hostmem.Content `json:"content,omitempty"`
	Size     int64            `json:"size,omitempty"`
	// Pad makes a transfer as long on the wire as the object it moves, so
	// bandwidth, slicer and limit_data toxics see the real byte count
	// (the content itself is symbolic).
	Pad []byte `json:"pad,omitempty"`
}

// dataResp is a Read's answer: the content, padded like a request.
type dataResp struct {
	Content hostmem.Content `json:"content"`
	Pad     []byte          `json:"pad,omitempty"`
}

func (w *World) startDataServer(ctx context.Context, node string) error {
	s := wire.NewServer("te:"+node, w.logger)
	// decode finds the process on this node that owns the request's endpoint.
	decode := func(raw json.RawMessage) (*Process, dataReq, error) {
		var r dataReq
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, r, fmt.Errorf("bad params: %w", err)
		}
		w.netMu.Lock()
		p, ok := w.endpointOwnerLocked(node, r.Endpoint)
		w.netMu.Unlock()
		if !ok || p.node != node {
			return nil, r, fmt.Errorf("no transfer engine at %s on %s", r.Endpoint, node)
		}
		return p, r, nil
	}
	s.Handle("Write", func(_ context.Context, raw json.RawMessage) (any, error) {
		p, r, err := decode(raw)
		if err != nil {
			return nil, err
		}
		w.gate.Lock()
		defer w.gate.Unlock()
		if r.Content == nil {
			return nil, fmt.Errorf("bad params: Write without content")
		}
		return nil, p.mem.WriteContent(r.Addr, *r.Content)
	})
	s.Handle("Read", func(_ context.Context, raw json.RawMessage) (any, error) {
		p, r, err := decode(raw)
		if err != nil {
			return nil, err
		}
		w.gate.Lock()
		defer w.gate.Unlock()
		c, err := p.mem.ReadContent(r.Addr, r.Size)
		return dataResp{Content: c, Pad: make([]byte, r.Size)}, err
	})
	if err := s.Listen(ctx, w.bindHost()+":0"); err != nil {
		return fmt.Errorf("fake engine: transfer endpoint of %s: %w", node, err)
	}
	w.netMu.Lock()
	w.dataSrv[node] = s
	w.netMu.Unlock()
	return nil
}

// dataPath is te.DataPath for one node.
type dataPath struct{ n nodeNet }

func (d dataPath) target(endpoint string) (*Process, string, error) {
	w := d.n.w
	w.netMu.Lock()
	p, ok := w.endpointOwnerLocked(d.n.node, endpoint)
	var addr string
	if ok {
		addr = w.dataSrv[p.node].Addr()
	}
	w.netMu.Unlock()
	if !ok {
		return nil, "", fmt.Errorf("transfer to %s: no such endpoint", endpoint)
	}
	return p, addr, nil
}

func (d dataPath) call(ctx context.Context, addr, method string, req dataReq, out any) error {
	t := wire.Timeouts{Connect: d.n.w.scale.timeout(transferTimeout), Request: d.n.w.scale.timeout(transferTimeout)}
	var err error
	d.n.w.gate.wait(func() { err = wire.Call(ctx, d.n.dialAddr(addr), t, method, req, out) })
	return d.n.rescale(err)
}

// Write implements te.DataPath.
func (d dataPath) Write(ctx context.Context, endpoint string, addr uint64, c hostmem.Content) error {
	owner, srv, err := d.target(endpoint)
	if err != nil {
		return err
	}
	if owner.node == d.n.node {
		return owner.mem.WriteContent(addr, c) // local memcpy; the caller holds the gate
	}
	return d.call(ctx, srv, "Write", dataReq{Endpoint: endpoint, Addr: addr, Content: &c, Pad: make([]byte, c.Size)}, nil)
}

// Read implements te.DataPath.
func (d dataPath) Read(ctx context.Context, endpoint string, addr uint64, size int64) (hostmem.Content, error) {
	owner, srv, err := d.target(endpoint)
	if err != nil {
		return hostmem.Content{}, err
	}
	if owner.node == d.n.node {
		return owner.mem.ReadContent(addr, size)
	}
	var out dataResp
	if err := d.call(ctx, srv, "Read", dataReq{Endpoint: endpoint, Addr: addr, Size: size}, &out); err != nil {
		return hostmem.Content{}, err
	}
	return out.Content, nil
}

// nameEndpoint records the TE server name of a client that set up (under
// the gate): with a metadata service and an explicit local_hostname port
// the name's port is not the one the TE bound, so peers resolve the name
// as Mooncake does through rpc_meta. The last setup under a name wins, as
// an etcd Put does. A nil p (mooncake_client, found by its bound port)
// records only the engine, for its peers' handshakes (te.Peer).
func (w *World) nameEndpoint(c interface{ Engine() *te.Engine }, p *Process) {
	eng := c.Engine()
	if eng == nil || eng.ServerName() == "" {
		return
	}
	w.netMu.Lock()
	defer w.netMu.Unlock()
	if w.names == nil {
		w.names, w.engines = map[string]*Process{}, map[string]*te.Engine{}
	}
	if p != nil {
		w.names[eng.ServerName()] = p
	}
	w.engines[eng.ServerName()] = eng
}
