package client

import (
	"context"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

var _ engine.SessionGetter = (*Store)(nil)

// BatchGetSessionStart implements engine.SessionGetter. The get-session
// API belongs to the real client (a DummyClient has none to forward to
// here): a store set up as a dummy answers what an unset-up one does.
func (s *Store) BatchGetSessionStart(ctx context.Context, keys []string) ([]int, error) {
	return call(s, func() ([]int, error) {
		if s.dummy != nil {
			return nil, engine.Unsupportedf("batch_get_session_start on a dummy client is not modelled")
		}
		return s.real.BatchGetSessionStart(ctx, keys)
	})
}

// BatchGetSessionStart is batch_get_session_start(keys)
// (RealClient::batch_get_session_start, real_client.cpp 3b5a594:5450-5497):
// one replica query for the keys, then per key the replica a session
// would read, cached (not modelled: no ranged read follows here). The
// binding returns [] for a client that is not set up (store_py.cpp
// 3b5a594:3030-3041). Per key: the query's error code; with
// Profile.SessionGetMemoryOnly a complete memory replica or
// "No complete memory replica for key: <key>" and INVALID_REPLICA; else
// (0.3.14) a complete replica of either kind. A lease granted by this
// query has not expired yet: LEASE_EXPIRED is never the answer here.
func (c *RealClient) BatchGetSessionStart(ctx context.Context, keys []string) ([]int, error) {
	if !c.ready() {
		return []int{}, nil
	}
	out := make([]int, len(keys))
	ctx = master.WithBatch(ctx, keys)
	// One BatchQuery for every key: a transport failure fails the rest
	// with the same code, as the model's other batch calls do.
	var rpcFailed mooncake.ErrorCode
	for i, k := range keys {
		if rpcFailed != 0 {
			out[i] = int(rpcFailed)
			continue
		}
		reps, err := c.ms.GetReplicaList(ctx, k)
		if c.died != nil {
			return nil, c.died
		}
		if err != nil {
			code := c.code(err)
			out[i] = int(code)
			if isRPCCode(code) {
				rpcFailed = code
			}
			continue
		}
		out[i] = int(c.sessionReplica(k, reps))
	}
	return out, nil
}

// sessionReplica is the choice batch_get_session_start makes among a
// key's replicas.
func (c *RealClient) sessionReplica(key string, reps []master.Replica) mooncake.ErrorCode {
	disk := false
	for _, r := range reps {
		if !r.Complete {
			continue
		}
		if !r.LocalDisk() {
			return mooncake.OK
		}
		disk = true
	}
	if c.p.SessionGetMemoryOnly {
		c.logf(mlog.Error, "No complete memory replica for key: %s", key)
		return mooncake.INVALID_REPLICA
	}
	if disk {
		return mooncake.OK
	}
	// 0.3.14 with no complete replica at all: not measured (no source);
	// INVALID_REPLICA as 3b5a594, without its memory-only line.
	return mooncake.INVALID_REPLICA
}
