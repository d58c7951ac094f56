package main

import (
	"context"
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
)

// warp is an engine nothing registered: it has no capability.
type warp struct{ engine.Engine }

func (warp) Name() string { return "warp" }

// The CLI asks for capabilities, and its refusals name the engines that
// have them.
func TestCapabilityRefusals(t *testing.T) {
	if _, err := inContainers(context.Background(), []engine.Engine{warp{}}, nil); err == nil ||
		err.Error() != "--containers: engine warp cannot run in containers (only sim, fake and real can)" {
		t.Errorf("inContainers(warp): %v", err)
	}
	out, err := execute(t, "run", "--build", "mine", "--engine", "sim,fake")
	if err == nil || err.Error() != "--build mine: runs on the real engine; add --engine real" || out != "" {
		t.Errorf("--build without real: err %v, out %q", err, out)
	}
	// sim models a container world without Docker: the swap needs no daemon.
	model, err := engineWith(engine.Deterministic, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	engs, err := inContainers(context.Background(), []engine.Engine{model}, nil)
	if err != nil || len(engs) != 1 || !engs[0].(interface{ InContainers() bool }).InContainers() {
		t.Errorf("inContainers(sim) = %v, %v", engs, err)
	}
	if e, err := engineWith(engine.Deterministic|engine.Reference, engine.Options{}); err == nil ||
		err.Error() != "no engine linked into this program has the capabilities Deterministic+Reference" {
		t.Errorf("engineWith(Deterministic+Reference) = %v, %v", e, err)
	}
}
