package client

import (
	"context"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
)

// handshakeReadTimeout is readFully's kReadTimeout (common.h v0.3.10.post2:
// 300 s, the loop's deadline; SO_RCVTIMEO's 60 s EAGAINs only retry).
const handshakeReadTimeout = 300 * time.Second

// handshakeRcvTimeout is doConnect's SO_RCVTIMEO (transfer_metadata_plugin.cpp
// v0.3.12.post1:956-958): from 0.3.13 readFully ends at its first EAGAIN.
const handshakeRcvTimeout = 60 * time.Second

// handshakeUnanswered is a read whose transfer fetches the target's segment
// descriptor again over the P2P handshake and meets a paused peer: its
// kernel accepts the connect and takes the request, nothing answers.
// Only without the metadata cache (MC_DISABLE_METACACHE set, getenv
// presence: config.cpp v0.3.12.post1:316) - with it, the descriptor cached
// by the put serves MultiTransport::selectTransport's getSegmentDescByID
// (transfer_metadata.cpp v0.3.12.post1:1178) and the transfer itself meets
// the peer (transferStalled). From 0.3.10.post2 readFully gives up after
// kReadTimeout and the handshake fails: selectTransport's InvalidArgument
// fails the submit. Real 0.3.12.post1 (io/peer-paused-handshake-timeout)
// printed these lines 300 s into the get, per key. From 0.3.13 an EAGAIN
// ends the read at SO_RCVTIMEO's 60 s with other lines (common.h
// 3b5a594:388, readString 3b5a594:472; real 0.3.13.post1 and 0.3.14, 60 s
// per key). Up to 0.3.10.post1 readFully has no deadline (it waits for the
// peer to resume): not modelled, stalled is false there. The peer is told
// of the abandoned request: resumed, it answers on the closed socket.
func (c *RealClient) handshakeUnanswered(ctx context.Context, r master.Replica, key string) (stalled bool, err error) {
	if _, off := c.d.Env["MC_DISABLE_METACACHE"]; !off || !c.te.Handshake() || r.TEProtocol != "tcp" || c.localMemcpy(r) {
		return false, nil
	}
	v := c.p.Version
	if !v.AtLeast("0.3.10.post2") || c.d.Host.Peer == nil {
		return false, nil
	}
	p, ok := c.d.Host.Peer(r.TEEndpoint)
	if !ok || !p.Paused {
		return false, nil
	}
	eagain := v.AtLeast("0.3.13")
	wait := handshakeReadTimeout
	if eagain {
		wait = handshakeRcvTimeout
	}
	if err := c.d.Clock.Sleep(ctx, wait); err != nil {
		return true, err
	}
	if p.Abandoned != nil {
		p.Abandoned()
	}
	if eagain {
		c.logf(mlog.Warning, "Socket read timed out: expected 8 bytes, actual 0 bytes")
		c.logf(mlog.Warning, "readString: incomplete handshake length, got: 0")
	} else {
		// deadline is steady_clock's time_since_epoch in nanoseconds
		// (real: since boot); the model's clock stands for it.
		deadline := c.d.Clock.Now().Nanoseconds()
		c.logf(mlog.Warning, "Socket read timed out, timeout: %d, deadline: %d, read 0 out of 8 bytes", int64(handshakeReadTimeout/time.Second), deadline)
		c.logf(mlog.Error, "readString: failed to read length, got: 0")
	}
	c.logf(mlog.Error, "SocketHandShakePlugin: unexpected handshake message type")
	c.logf(mlog.Error, "Failed to submit all transfers, error code is InvalidArgument")
	if master.BatchOf(ctx) != nil {
		c.logf(mlog.Error, "Failed to submit transfer operation for key: %s", key)
	} else {
		c.logf(mlog.Error, "Failed to submit transfer operation")
	}
	return true, nil
}
