package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/mooncake-faultlab/faultlab/containers"
	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/realengine"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// inContainers swaps each engine for its container-world variant
// (`run --containers`): the real engine runs every party in a container;
// sim models a container world (sim/containers.go), without Docker.
// fake's servers in containers are not built yet, and saying so beats
// running them as processes under a flag that promises containers.
func inContainers(ctx context.Context, engs []engine.Engine, log *slog.Logger) ([]engine.Engine, error) {
	out := make([]engine.Engine, 0, len(engs))
	for _, e := range engs {
		switch e.Name() {
		case sim.Name:
			out = append(out, sim.NewWith(sim.Options{Containers: true}))
			continue
		case realengine.Name:
		default:
			return nil, fmt.Errorf("--containers: engine %s cannot run in containers (only %s and %s can, for now)", e.Name(), realengine.Name, sim.Name)
		}
		if err := containers.Available(ctx); err != nil {
			return nil, fmt.Errorf("--containers: %w", err)
		}
		out = append(out, realengine.New(realengine.Options{Logger: log, Containers: true}))
	}
	return out, nil
}
