package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/mooncake-faultlab/faultlab/containers"
	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/fakeengine"
	"github.com/mooncake-faultlab/faultlab/realengine"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// inContainers swaps each engine for its container-world variant
// (`run --containers`): the real engine runs every party in a container,
// the fake engine its servers and toxiproxy (the SGLang model stays in the
// harness); sim models a container world (sim/containers.go), without
// Docker.
func inContainers(ctx context.Context, engs []engine.Engine, log *slog.Logger) ([]engine.Engine, error) {
	out := make([]engine.Engine, 0, len(engs))
	for _, e := range engs {
		var ctr engine.Engine
		switch e.Name() {
		case sim.Name:
			out = append(out, sim.NewWith(sim.Options{Containers: true}))
			continue
		case realengine.Name:
			ctr = realengine.New(realengine.Options{Logger: log, Containers: true})
		case fakeengine.Name:
			ctr = fakeengine.New(fakeengine.Options{Logger: log, Containers: true})
		default:
			return nil, fmt.Errorf("--containers: engine %s cannot run in containers (only %s, %s and %s can)", e.Name(), realengine.Name, fakeengine.Name, sim.Name)
		}
		if err := containers.Available(ctx); err != nil {
			return nil, fmt.Errorf("--containers: %w", err)
		}
		out = append(out, ctr)
	}
	return out, nil
}
