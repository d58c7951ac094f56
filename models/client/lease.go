package client

import (
	"context"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// batchLeases are the leases a batch read's one BatchQuery granted.
// Client::BatchQuery stamps every key's lease_timeout with the one time
// point taken before BatchGetReplicaList is sent, and Client::BatchGet
// checks every key whose transfer succeeded against one time point taken
// after all transfers ("As lease expired is a rare case, we check all the
// results with the same time_point", client.cpp v0.3.7:736,
// client_service.cpp v0.3.9:840 … 3b5a594:1798): so a query slower than
// the lease fails every key of the batch, not only the first (real 0.3.9,
// io/lease-expired-before-transfer-completed).
type batchLeases struct {
	start time.Duration            // the clock before the batch's query
	ttl   map[string]time.Duration // lease_ttl_ms the master granted per key
}

type batchLeasesKey struct{}

// batchLeasesOf is ctx's batch read's leases; nil outside one.
func batchLeasesOf(ctx context.Context) *batchLeases {
	bl, _ := ctx.Value(batchLeasesKey{}).(*batchLeases)
	return bl
}

// granted records key's lease from the batch's query.
func (bl *batchLeases) granted(key string, ttl time.Duration) {
	bl.ttl[key] = ttl
}

// expireBatchLeases is Client::BatchGet's lease check: every key read
// (out[i] >= 0) whose lease ran out by now fails with LEASE_EXPIRED, its
// warning in key order after all transfers.
func (c *RealClient) expireBatchLeases(keys []string, out []int, bl *batchLeases) {
	now := c.d.Clock.Now()
	for i, k := range keys {
		ttl, ok := bl.ttl[k]
		if !ok || out[i] < 0 || ttl <= 0 || now < bl.start+ttl {
			continue
		}
		c.logf(mlog.Warning, "lease_expired_before_data_transfer_completed key=%s", k)
		out[i] = int(mooncake.LEASE_EXPIRED)
	}
}
