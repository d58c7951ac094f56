package sim

import (
	"context"

	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/te"
)

// tcpPool is one process's TcpTransport connection pool
// (MC_TCP_ENABLE_CONNECTION_POOL set, 0.3.10 … 0.3.12.post1): per endpoint,
// the peer process its connections reach and how many it keeps. asio opens
// one connection per concurrent slice and keeps each idle one; the model
// runs a batch's keys one by one, so a batch of n keys counts as n
// connections (real 0.3.11.post1: a 4-key batch_put_from, then 4 reads on
// 4 pooled connections after the peer died).
type tcpPool map[string]*pooled

type pooled struct {
	mem   *hostmem.Space
	conns int
}

// newTCPPool is the pool of a process with env, nil when it connects anew
// for each transfer or its release keeps no such pool (the 0.3.13 lanes
// are not modelled here).
func (w *World) newTCPPool(env map[string]string) tcpPool {
	if !w.profile.TCPOneShotPorts || w.oneShotTCP(env) {
		return nil
	}
	if proto, ok := env["MOONCAKE_PROTOCOL"]; ok && proto != "tcp" {
		return nil
	}
	return tcpPool{}
}

// keep records a transfer to endpoint's process mem.
func (p tcpPool) keep(ctx context.Context, endpoint string, mem *hostmem.Space) {
	if p == nil {
		return
	}
	n := 1
	if b := master.BatchOf(ctx); b != nil && b.N > n {
		n = b.N
	}
	if e := p[endpoint]; e != nil && e.mem == mem {
		e.conns = max(e.conns, n)
		return
	}
	p[endpoint] = &pooled{mem: mem, conns: n}
}

// closed: a READ to endpoint, whose process is now mem (nil: none), takes
// a pooled connection to a process that died: the answer is End of file
// (real 0.3.10.post1, 0.3.11.post1 with the pool on, the peer SIGKILLed
// after the puts). Once the pooled connections are used up, a READ
// connects anew.
func (p tcpPool) closed(endpoint string, mem *hostmem.Space, write bool) error {
	e := p[endpoint]
	if write || e == nil || e.mem == mem {
		return nil
	}
	e.conns--
	if e.conns <= 0 {
		delete(p, endpoint)
	}
	return &te.TransferClosed{Endpoint: endpoint, Err: te.ErrEOF}
}
