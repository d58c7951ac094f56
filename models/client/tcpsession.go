package client

import (
	"context"
	"errors"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// stallStep is how often a read stalled on a frozen peer looks whether the
// peer died (virtual time; the kill's RST ends real's wait at once).
const stallStep = time.Millisecond

// stallDeadline is when a transfer to a peer that never answers fails: the
// TCP transport's status-frame deadline (0.3.12 on, status > 0) or the
// store's 60 s wait, counted from the batch's submission where the release
// does (transferStalled).
func (c *RealClient) stallDeadline(ctx context.Context) (at, status time.Duration) {
	wait := storeTransferWait
	if c.p.TCPStatusDeadline {
		if s := c.statusFrameTimeout(); s < wait {
			wait, status = s, s
		}
	}
	start := c.d.Clock.Now()
	if s, ok := ctx.Value(batchStartKey{}).(time.Duration); ok && (status > 0 || c.p.TransferWaitFromSubmit) {
		start = s
	}
	return start + wait, status
}

// waitStalledRead is transferStalled for a READ to a frozen peer, which
// also ends if the peer dies first (st.Gone): a SIGKILLed process's kernel
// resets the connection whose request it never read, and the read fails
// there, with no deadline line. It reports whether the peer died first.
func (c *RealClient) waitStalledRead(ctx context.Context, st *te.TransferStalled) (bool, error) {
	if st.Gone == nil {
		return false, c.transferStalled(ctx, false)
	}
	at, status := c.stallDeadline(ctx)
	for {
		if st.Gone() {
			c.markReset(st.Endpoint)
			return true, nil
		}
		d := at - c.d.Clock.Now()
		if d <= 0 {
			c.stalledLines(status, false)
			return false, nil
		}
		if err := c.d.Clock.Sleep(ctx, min(d, stallStep)); err != nil {
			return false, err
		}
	}
}

// markReset records when endpoint's process was found dead under a READ.
func (c *RealClient) markReset(endpoint string) {
	if c.resetAt == nil {
		c.resetAt = map[string]time.Duration{}
	}
	c.resetAt[endpoint] = c.d.Clock.Now()
}

// resetUnderBatch: err is a refused connect to an endpoint whose death this
// batch already met. Real submits every key of a batch before it waits on
// any, so each key's READ was on its own connection when the peer died and
// fails by RST, not by a refused connect; the model reaches the later keys
// after the death.
func (c *RealClient) resetUnderBatch(ctx context.Context, endpoint string, err error) bool {
	start, ok := ctx.Value(batchStartKey{}).(time.Duration)
	at, dead := c.resetAt[endpoint]
	return ok && dead && start < at && errors.As(err, new(*te.TransferRefused))
}

// readFailed is a READ whose connection failed with err before the peer
// answered (its process died: reset when it died under the request, End of
// file on a pooled connection it had closed): the TCP transport's line at
// this release (te.SessionLine: the body read up to 0.3.11.post1, the
// status frame's from 0.3.12), the failed task, then the store's per-key
// result. Real io/peer-killed-mid-read, 0.3.8.post1 … 0.3.14, and
// io/peer-departed-pooled, 0.3.10.post1 … 0.3.12.post1
// (docs/REAL-FINDINGS.md §89).
func (c *RealClient) readFailed(ctx context.Context, key string, err te.SocketError) (hostmem.Content, mooncake.ErrorCode) {
	if lvl, text, ok := te.SessionLine(c.p.Version, te.ReadFailure(c.p.Version, err, c.transferSource(ctx))); ok {
		c.logf(lvl, "%s", text)
	}
	if master.BatchOf(ctx) != nil {
		c.transferTaskFailed()
		c.logf(mlog.Error, "Transfer failed for key: %s with error: %d", key, mooncake.TRANSFER_FAIL)
		return hostmem.Content{}, mooncake.TRANSFER_FAIL
	}
	c.logf(mlog.Error, "transfer_read_failed key=%s", key)
	return hostmem.Content{}, mooncake.TRANSFER_FAIL
}
