package main

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/scenarios"

	// The engines register themselves (engine.Register) in init.
	_ "github.com/mooncake-faultlab/faultlab/fakeengine"
	_ "github.com/mooncake-faultlab/faultlab/realengine"
	_ "github.com/mooncake-faultlab/faultlab/sim"
)

// buildEngines parses "sim,fake" and constructs each registered engine,
// or fails before anything runs.
func buildEngines(list string, log *slog.Logger) ([]engine.Engine, error) {
	return engine.Build(list, log)
}

// engineWith builds the first registered engine with every capability of
// c, or says which capability no linked engine has.
func engineWith(c engine.Caps, o engine.Options) (engine.Engine, error) {
	r, ok := engine.First(c)
	if !ok {
		return nil, fmt.Errorf("no engine linked into this program has the capabilities %s", c)
	}
	return r.New(o), nil
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
