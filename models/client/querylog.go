package client

import (
	"context"

	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// queryLogKey marks a single-key read whose binding logs a failed Query:
// get_buffer (store_py.cpp v0.3.4:570, pybind_client.cpp v0.3.6.post1:575,
// real_client.cpp v0.3.9:1070, v0.3.12.post1:2703, 3b5a594:2834), which
// get() reads through from v0.3.6 (Profile.GetViaBuffer); get() before
// v0.3.6 returns b"" without a line (store_py.cpp v0.3.4:422).
type queryLogKey struct{}

func withQueryLog(ctx context.Context) context.Context {
	return context.WithValue(ctx, queryLogKey{}, true)
}

// queryMiss reports whether the binding takes a failed Query's code as a
// miss and logs nothing: OBJECT_NOT_FOUND at every release, also
// REPLICA_IS_NOT_READY from v0.3.7 (pybind_client.cpp v0.3.7:587 and
// every batch loop; v0.3.6.post1:575 tests OBJECT_NOT_FOUND only).
func (c *RealClient) queryMiss(code mooncake.ErrorCode) bool {
	return code == mooncake.OBJECT_NOT_FOUND ||
		code == mooncake.REPLICA_IS_NOT_READY && c.p.Version.AtLeast("0.3.7")
}

// queryFailedLog is get_buffer's ERROR for a Query that failed with
// another code than a miss: the master refused or blackholed after init
// (RPC_FAIL, RPC_TIMEOUT), or answered an error of its own.
func (c *RealClient) queryFailedLog(ctx context.Context, key string, code mooncake.ErrorCode) {
	if ctx.Value(queryLogKey{}) == nil || c.queryMiss(code) {
		return
	}
	c.logf(mlog.Error, "Query failed for key: %s with error: %s", key, code.Name())
}

// batchQueryFailedLog is batch_get_into's per-key ERROR for the keys its
// one BatchQuery failed (store_py.cpp v0.3.5:1100, pybind_client.cpp
// v0.3.6.post1:960, real_client.cpp v0.3.9:1679, v0.3.12.post1:4634,
// 3b5a594:5106), in key order. A failed BatchGetReplicaList RPC fails
// every key with its code; the model asked no further after it
// (queryReplicas), so those keys carry the batch's code in out.
func (c *RealClient) batchQueryFailedLog(ctx context.Context, keys []string, out []int) {
	bq, _ := ctx.Value(batchQueryKey{}).(*batchQuery)
	if bq == nil {
		return
	}
	for i, k := range keys {
		var code mooncake.ErrorCode
		if q, ok := bq.got[k]; ok {
			if q.err == nil {
				continue
			}
			code = master.Code(q.err, c.p)
		} else if code = mooncake.ErrorCode(out[i]); !isRPCCode(code) {
			continue
		}
		if c.queryMiss(code) {
			continue
		}
		c.logf(mlog.Error, "Query failed for key '%s': %s", k, code.Name())
	}
}
