package main

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/fakeengine"
	"github.com/mooncake-faultlab/faultlab/realengine"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// engineCtor builds an engine; whether it can run here is Available's answer.
type engineCtor func(log *slog.Logger) engine.Engine

// engines is the one place that maps CLI engine names to constructors.
var engines = map[string]engineCtor{
	"sim":  func(*slog.Logger) engine.Engine { return sim.New() },
	"fake": func(log *slog.Logger) engine.Engine { return fakeengine.New(fakeengine.Options{Logger: log}) },
	"real": func(log *slog.Logger) engine.Engine { return realengine.New(realengine.Options{Logger: log}) },
}

// engineNames is the registry's order for messages.
var engineNames = []string{"sim", "fake", "real"}

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
		out = append(out, ctor(log))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no engine given: valid engines are %s", strings.Join(engineNames, ", "))
	}
	return out, nil
}

// preflight fails when an engine can run none of the versions the
// selected scenarios need (e.g. the real engine with nothing installed), so
// nothing runs; an engine that lacks only some versions skips those.
func preflight(ctx context.Context, engs []engine.Engine, scs []*scenarios.Scenario, override string) error {
	var versions []string
	for _, sc := range scs {
		vs, _ := sc.Versions(override)
		for _, v := range vs {
			if !slices.Contains(versions, v) {
				versions = append(versions, v)
			}
		}
	}
	for _, e := range engs {
		var first error
		ok := false
		for _, v := range versions {
			err := e.Available(ctx, v)
			if err == nil {
				ok = true
				break
			}
			if first == nil {
				first = err
			}
		}
		if !ok && first != nil {
			return fmt.Errorf("engine %s cannot run any selected version (%s): %w", e.Name(), strings.Join(versions, ", "), first)
		}
	}
	return nil
}
