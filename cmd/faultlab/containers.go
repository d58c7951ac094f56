package main

import (
	"context"
	"fmt"
	"log/slog"

	"strings"

	"github.com/mooncake-faultlab/faultlab/containers"
	"github.com/mooncake-faultlab/faultlab/engine"
)

// inContainers swaps each engine for its container-world variant
// (`run --containers`): an engine with engine.Containers builds its world
// in containers (real: every party; fake: its servers and toxiproxy, the
// SGLang model stays in the harness) and needs Docker; one with
// engine.ModelsContainers models a container world without Docker (sim).
func inContainers(ctx context.Context, engs []engine.Engine, log *slog.Logger) ([]engine.Engine, error) {
	out := make([]engine.Engine, 0, len(engs))
	for _, e := range engs {
		r, ok := engine.Lookup(e.Name())
		switch {
		case ok && r.Caps.Has(engine.ModelsContainers):
			out = append(out, r.New(engine.Options{Logger: log, Containers: true}))
			continue
		case !ok || !r.Caps.Has(engine.Containers):
			var can []string
			for _, r := range engine.Registered() {
				if r.Caps.Has(engine.Containers) || r.Caps.Has(engine.ModelsContainers) {
					can = append(can, r.Name)
				}
			}
			return nil, fmt.Errorf("--containers: engine %s cannot run in containers (only %s can)", e.Name(), joinAnd(can))
		}
		ctr := r.New(engine.Options{Logger: log, Containers: true})
		if err := containers.Available(ctx); err != nil {
			return nil, fmt.Errorf("--containers: %w", err)
		}
		out = append(out, ctr)
	}
	return out, nil
}

// joinAnd writes a list as prose: "a", "a and b", "a, b and c".
func joinAnd(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}
