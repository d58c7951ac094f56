// Package fakeengine is the "fake" engine: the Mooncake models sim also
// drives (models/master, models/client, models/te, models/metadata,
// models/hostmem) served on real loopback sockets in wall time, with an
// in-process toxiproxy proxy in front of every link (node→master,
// node→metadata, node→client, node→node). Faults are toxics, stopped
// proxies, or stopped/paused servers.
package fakeengine

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/mooncake-faultlab/faultlab/containers"
	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// Name is the engine's CLI name.
const Name = "fake"

func init() {
	engine.Register(engine.Registration{Name: Name,
		Doc: "the Mooncake models on loopback sockets in scaled wall time, faults through toxiproxy",
		New: func(o engine.Options) engine.Engine {
			return New(Options{Logger: o.Logger, Containers: o.Containers})
		},
		Caps: engine.Containers})
}

// Options configure the engine.
type Options struct {
	Logger *slog.Logger
	// Containers runs the master and metadata servers and toxiproxy each in
	// its own container (incontainers.go); the SGLang side stays here.
	Containers bool
}

// Engine builds fake worlds.
type Engine struct {
	opts Options

	mu                   sync.Mutex
	fakeImage, toxiImage string // built once (Containers)
}

// New returns the fake engine.
func New(opts Options) engine.Engine { return &Engine{opts: opts} }

// Name implements engine.Engine.
func (e *Engine) Name() string { return Name }

// Available implements engine.Engine: the fake engine needs only loopback
// sockets and a version profile (and Docker, with Containers).
func (e *Engine) Available(ctx context.Context, version string) error {
	if _, err := mooncake.ProfileFor(version); err != nil {
		return fmt.Errorf("fake engine: %w", err)
	}
	if e.opts.Containers {
		if err := containers.Available(ctx); err != nil {
			return fmt.Errorf("fake engine: %w", err)
		}
	}
	return ctx.Err()
}

// InContainers implements scenarios.ContainerWorlds: with Containers the
// servers of its worlds run in containers.
func (e *Engine) InContainers() bool { return e.opts.Containers }
