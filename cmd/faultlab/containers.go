package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/mooncake-faultlab/faultlab/containers"
	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/fakeengine"
	"github.com/mooncake-faultlab/faultlab/realengine"
)

// inContainers swaps each engine for its container-world variant
// (`run --containers`): the real engine runs every party in a container,
// the fake engine its servers and toxiproxy (the SGLang model stays in the
// harness). sim has no processes to place: saying so beats running it
// under a flag that promises containers.
func inContainers(ctx context.Context, engs []engine.Engine, log *slog.Logger) ([]engine.Engine, error) {
	if err := containers.Available(ctx); err != nil {
		return nil, fmt.Errorf("--containers: %w", err)
	}
	out := make([]engine.Engine, 0, len(engs))
	for _, e := range engs {
		switch e.Name() {
		case realengine.Name:
			out = append(out, realengine.New(realengine.Options{Logger: log, Containers: true}))
		case fakeengine.Name:
			out = append(out, fakeengine.New(fakeengine.Options{Logger: log, Containers: true}))
		default:
			return nil, fmt.Errorf("--containers: engine %s cannot run in containers (only %s and %s can)", e.Name(), fakeengine.Name, realengine.Name)
		}
	}
	return out, nil
}
