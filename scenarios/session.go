package scenarios

import (
	"context"
	"fmt"

	"github.com/mooncake-faultlab/faultlab/engine"
)

// integrationSessionStart is a fetch step's batch_get_session_start([key]):
// the attribute lookup first (AttributeError before 0.3.13), then the
// call; its one code. A store without the get-session API is a skip.
func integrationSessionStart(ctx context.Context, s Step, in integration) (int, error) {
	if err := in.store.Lookup(ctx, s.Method); err != nil {
		return 0, err
	}
	sg, ok := in.store.(engine.SessionGetter)
	if !ok {
		return 0, engine.Unsupportedf("fetch on %s: this engine's store has no %s", s.Node, s.Method)
	}
	rcs, err := sg.BatchGetSessionStart(ctx, []string{s.Key})
	return single(s, rcs, err)
}

// single is a fetch step's one answer of a batch call made with its one
// key.
func single(s Step, ns []int, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	if len(ns) != 1 {
		return 0, fmt.Errorf("fetch on %s: %s returned %d answers for 1 key", s.Node, s.Method, len(ns))
	}
	return ns[0], nil
}
