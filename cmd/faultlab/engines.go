package main

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// engineCtor builds an engine; an error means it cannot be used at all in
// this binary (not built), as opposed to Available's per-version answer.
type engineCtor func(log *slog.Logger) (engine.Engine, error)

// engines is the one place that maps CLI engine names to constructors.
var engines = map[string]engineCtor{
	"sim":  func(*slog.Logger) (engine.Engine, error) { return sim.New(), nil },
	"fake": notBuilt("fake"),
	"real": notBuilt("real"),
}

// engineNames is the registry's order for messages.
var engineNames = []string{"sim", "fake", "real"}

func notBuilt(name string) engineCtor {
	return func(*slog.Logger) (engine.Engine, error) {
		return nil, fmt.Errorf("engine %s not built yet (its package is not wired into cmd/faultlab/engines.go)", name)
	}
}

// buildEngines parses "sim,fake" and constructs each engine, or fails
// before anything runs.
func buildEngines(list string, log *slog.Logger) ([]engine.Engine, error) {
	var out []engine.Engine
	seen := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		ctor, ok := engines[n]
		if !ok {
			return nil, fmt.Errorf("unknown engine %q: valid engines are %s", n, strings.Join(engineNames, ", "))
		}
		e, err := ctor(log)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no engine given: valid engines are %s", strings.Join(engineNames, ", "))
	}
	return out, nil
}

var _ = slices.Contains[[]string]
