package scenarios

import (
	"context"
	"errors"

	"github.com/mooncake-faultlab/faultlab/sglang"
	"github.com/mooncake-faultlab/faultlab/trace"
)

// appStore is what the runner needs of one started SGLang MooncakeStore.
type appStore interface {
	BatchSet(ctx context.Context, keys []string) ([]any, error)
	BatchGet(ctx context.Context, keys []string) ([]any, error)
	BatchExists(ctx context.Context, keys []string) (int, error)
	HealthCheck(ctx context.Context) (int, error)
	Close(ctx context.Context) error
}

// startSGLang is sglang.Start. TEMPORARY until sglang/ lands.
func startSGLang(ctx context.Context, l sglang.Launch) (appStore, error) {
	return nil, errors.New("sglang package not built yet")
}

// callsFrom extracts store calls from trace events.
func callsFrom(events []trace.Event) []Call { return nil }
