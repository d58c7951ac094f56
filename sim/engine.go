// Package sim is faultlab's deterministic engine: the Mooncake models
// (master, transfer engine, host memory, network, clients) driven by one
// discrete-event kernel in virtual time. Store calls run the client model
// synchronously; waits advance the virtual clock and fire due events
// (faults, heartbeats) in (time, sequence) order. Nothing reads the wall
// clock; every random choice comes from a stream derived from the seed.
package sim

import (
	"context"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// Name is the engine's CLI name.
const Name = "sim"

func init() {
	engine.Register(engine.Registration{Name: Name,
		Doc:  "the Mooncake models in virtual time: deterministic, milliseconds per scenario",
		New:  func(o engine.Options) engine.Engine { return NewWith(Options{Containers: o.Containers}) },
		Caps: engine.Deterministic | engine.ModelsContainers})
}

// Options configure the sim engine.
type Options struct {
	// Containers models a container world (`faultlab run --engine sim
	// --containers`; containers.go): container faults are injected, and
	// a loopback local_hostname is each node's own.
	Containers bool
}

// Engine is the sim engine.
type Engine struct{ opts Options }

// New returns the sim engine (parties as processes on one host).
func New() engine.Engine { return Engine{} }

// NewWith returns the sim engine with opts.
func NewWith(opts Options) engine.Engine { return Engine{opts: opts} }

// Name implements engine.Engine.
func (Engine) Name() string { return Name }

// InContainers: the engine models container worlds (Options.Containers).
func (e Engine) InContainers() bool { return e.opts.Containers }

// ContainerWorld implements scenarios.ContainerModel: a scenario labelled
// container runs in the modelled container world even without
// --containers; every other scenario keeps the world of processes.
func (e Engine) ContainerWorld() engine.Engine {
	o := e.opts
	o.Containers = true
	return Engine{opts: o}
}

// Available implements engine.Engine: every known version.
func (Engine) Available(_ context.Context, version string) error {
	_, err := mooncake.ProfileFor(version)
	return err
}

// Launch implements engine.Engine.
func (e Engine) Launch(ctx context.Context, spec engine.WorldSpec) (engine.World, error) {
	if why := spec.NeedsContainers(); why != "" && !e.opts.Containers {
		return nil, engine.Unsupportedf("%s", why)
	}
	return launch(ctx, spec, e.opts)
}
