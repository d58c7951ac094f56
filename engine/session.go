package engine

import "context"

// SessionGetter is a Store with Mooncake's get-session API (bound from
// 0.3.13: store_py.cpp batch_get_session_start at 3b5a594):
// batch_get_session_start(keys) asks the master for each key's replicas
// once and caches one per key for later ranged reads; it returns one code
// per key, 0 or the negative ErrorCode. Optional: a Store without it makes
// a step that needs it a skip (Unsupported).
type SessionGetter interface {
	BatchGetSessionStart(ctx context.Context, keys []string) ([]int, error)
}
