package sim

import (
	"context"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/client"
	"github.com/mooncake-faultlab/faultlab/models/master"
)

// rpcProtocolCall is one TCP client call of req bytes reaching the running
// master m when the master serves its RPC over RDMA (MC_RPC_PROTOCOL=rdma,
// master.Master.TCPClient): nil when m serves it, else the call's failure
// after the time it takes. The client's own MC_RPC_PROTOCOL is not
// consulted: a client speaking ibverbs to an RDMA master (both with an
// RNIC) is not modelled; the catalog's worlds give the client none.
func (w *World) rpcProtocolCall(ctx context.Context, clock engine.Clock, m *master.Master, op string, req int64, t client.Timeouts) error {
	switch m.TCPClient(req) {
	case master.TCPHeld:
		// The server waits for the rest of the QP info; the client's
		// request timer fires and closes the socket.
		if err := clock.Sleep(ctx, t.Request); err != nil {
			return err
		}
		m.HeldClosed()
		return &master.RPCError{Kind: master.RequestTimeout, Op: op, After: t.Request}
	case master.TCPClosed:
		return &master.RPCError{Kind: master.EOF, Op: op}
	case master.TCPExits:
		// The process is gone (real: exit 245, nothing logged at
		// 0.3.7.post2): later connects are refused, the embedded
		// metadata server went with it.
		w.masterConnsClosed()
		w.masterState = stopped
		if w.spec.Metadata == "master" {
			w.metadataState = stopped
		}
		return &master.RPCError{Kind: master.Reset, Op: op}
	}
	return nil
}
