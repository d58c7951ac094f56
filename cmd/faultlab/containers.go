package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/mooncake-faultlab/faultlab/containers"
	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/realengine"
)

// inContainers swaps each engine for its container-world variant
// (`run --containers`): the real engine runs every party in a container.
// sim has no processes to place; fake's servers in containers are not built
// yet, and saying so beats running them as processes under a flag that
// promises containers.
func inContainers(ctx context.Context, engs []engine.Engine, log *slog.Logger) ([]engine.Engine, error) {
	if err := containers.Available(ctx); err != nil {
		return nil, fmt.Errorf("--containers: %w", err)
	}
	out := make([]engine.Engine, 0, len(engs))
	for _, e := range engs {
		if e.Name() != realengine.Name {
			return nil, fmt.Errorf("--containers: engine %s cannot run in containers (only %s can, for now)", e.Name(), realengine.Name)
		}
		out = append(out, realengine.New(realengine.Options{Logger: log, Containers: true}))
	}
	return out, nil
}
