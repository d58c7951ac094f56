package client

import (
	"context"

	"github.com/mooncake-faultlab/faultlab/sim/master"
	"github.com/mooncake-faultlab/faultlab/sim/mlog"
)

// transferStatusFailed is TransferStatusEnum::FAILED (transfer_engine.h).
const transferStatusFailed = 6

// transferBatchBase numbers the sim's transfer batches in log lines; real
// prints a heap address (batch_id_), which differs per run anyway.
const transferBatchBase = 94528297200000

// localMemcpy is TransferSubmitter's strategy choice for replica r: a copy
// inside the process, no transfer engine (see mooncake.StoreMemcpy).
func (c *RealClient) localMemcpy(r master.Replica) bool {
	if r.TEEndpoint != c.te.ServerName() && r.SegmentName != c.hostname {
		return false
	}
	v, set := c.d.Env["MC_STORE_MEMCPY"]
	tcpOnly := len(c.te.Transports()) == 1 && c.te.SegmentProtocol() == "tcp"
	return c.p.StoreMemcpy.LocalMemcpy(v, set, tcpOnly)
}

// transferMetadata is what the transfer engine reads from the metadata
// service before a byte of replica r moves: TcpTransport::startTransfer's
// getRpcMetaEntry of the target segment (te.RPCMetaEntry). A failure marks
// the slice failed, so the transfer fails (TRANSFER_FAIL). RDMA's
// handshake reads rpc_meta too (sendHandshake); it is not modelled.
func (c *RealClient) transferMetadata(ctx context.Context, r master.Replica) bool {
	if c.localMemcpy(r) || r.TEProtocol != "tcp" {
		return true
	}
	if c.te.RPCMetaEntry(ctx, r.TEEndpoint) {
		return true
	}
	c.logf(mlog.Error, "TcpTransport::startTransfer failed to get RPC meta entry for segment name: %s", r.TEEndpoint)
	if c.p.TransferBatchFailLogged {
		c.batches++
		c.logf(mlog.Error, "Transfer failed for batch %d task 0 with status %d", transferBatchBase+c.batches*16, transferStatusFailed)
	}
	return false
}

// republish is the end of the ping thread's remount_segment (v0.3.12+,
// client_service.cpp): whether or not ReMountSegment succeeded, the segment
// descriptor and then the rpc_meta entry are written again, because a
// master restarted with its embedded metadata server lost both. Before
// v0.3.12 a remount restores the master's allocation state only.
func (c *RealClient) republish(ctx context.Context) {
	if !c.p.RemountRepublish || c.te == nil {
		return
	}
	if rc := c.te.UpdateLocalSegmentDesc(ctx); rc != 0 {
		c.logf(mlog.Error, "Failed to re-publish segment descriptor to metadata server, rc=%d, will retry in next heartbeat cycle", rc)
		c.segPending = true
	} else {
		c.segPending = false
	}
	if rc := c.te.RePublishRpcMetaEntry(ctx); rc != 0 {
		c.logf(mlog.Error, "Failed to re-publish RPC meta entry to metadata server, rc=%d, will retry in next heartbeat cycle", rc)
		c.rpcMetaPending = true
	} else {
		c.rpcMetaPending = false
	}
}

// retryRepublish is a plain successful ping's retry of a failed
// re-publication: the segment descriptor first, the rpc_meta entry at a
// later ping once that succeeded.
func (c *RealClient) retryRepublish(ctx context.Context) {
	switch {
	case c.segPending:
		if rc := c.te.UpdateLocalSegmentDesc(ctx); rc != 0 {
			c.logf(mlog.Error, "Retry: failed to re-publish segment descriptor to metadata server, rc=%d", rc)
			return
		}
		c.logf(mlog.Info, "Retry: successfully re-published segment descriptor to metadata server")
		c.segPending = false
	case c.rpcMetaPending:
		if rc := c.te.RePublishRpcMetaEntry(ctx); rc != 0 {
			c.logf(mlog.Error, "Retry: failed to re-publish RPC meta entry to metadata server, rc=%d", rc)
			return
		}
		c.logf(mlog.Info, "Retry: successfully re-published RPC meta entry to metadata server")
		c.rpcMetaPending = false
	}
}
