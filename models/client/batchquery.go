package client

import (
	"context"

	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// batchQuery is a batch read's one BatchQuery: batch_get_into asks the
// master for every key's replicas before it transfers any
// (real_client.cpp v0.3.9:1655, client_->BatchQuery(keys) then
// client_->BatchGet with the results; the same at v0.3.12.post1 and
// 3b5a594), so a key whose client the master expires while an earlier
// key's transfer waits is still read from the replica it was given, and
// fails TRANSFER_FAIL, not OBJECT_NOT_FOUND (real 0.3.9 … 0.3.11.post1,
// io/peer-paused-store-wait: -800 for both keys, the paused peer expired
// at client_ttl during the first key's 60 s wait).
type batchQuery struct {
	keys []string
	got  map[string]queried
}

type queried struct {
	reps []master.Replica
	err  error
}

type batchQueryKey struct{}

// withBatchQuery makes ctx's reads of keys answer from one query.
func withBatchQuery(ctx context.Context, keys []string) context.Context {
	return context.WithValue(ctx, batchQueryKey{}, &batchQuery{keys: keys, got: map[string]queried{}})
}

// queryReplicas is the replica list of key: outside a batch read its own
// query; in one, the batch's answer, every key asked for when the first
// is. A query the transport failed asks no further (the batch fails the
// remaining keys with its code, RealClient.batch).
func (c *RealClient) queryReplicas(ctx context.Context, key string) ([]master.Replica, error) {
	bq, _ := ctx.Value(batchQueryKey{}).(*batchQuery)
	if bq == nil {
		return c.ms.GetReplicaList(ctx, key)
	}
	if q, ok := bq.got[key]; ok {
		return q.reps, q.err
	}
	reps, err := c.ms.GetReplicaList(ctx, key)
	bq.got[key] = queried{reps, err}
	if code := master.Code(err, c.p); err != nil && (code == mooncake.RPC_FAIL || code == mooncake.RPC_TIMEOUT) {
		return reps, err
	}
	for _, k := range bq.keys {
		if _, ok := bq.got[k]; ok {
			continue
		}
		r, e := c.ms.GetReplicaList(ctx, k)
		bq.got[k] = queried{r, e}
		if code := master.Code(e, c.p); e != nil && (code == mooncake.RPC_FAIL || code == mooncake.RPC_TIMEOUT) {
			break
		}
	}
	return reps, err
}
