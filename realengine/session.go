package realengine

import (
	"context"

	"github.com/mooncake-faultlab/faultlab/engine"
)

var _ engine.SessionGetter = (*Store)(nil)

// BatchGetSessionStart implements engine.SessionGetter: the driver's
// batch_get_session_start(keys) (AttributeError before 0.3.13).
func (s *Store) BatchGetSessionStart(ctx context.Context, keys []string) ([]int, error) {
	return s.intsCall(ctx, "batch_get_session_start", map[string]any{"keys": keys})
}
