package engine_test

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/fakeengine"
	"github.com/mooncake-faultlab/faultlab/realengine"
	"github.com/mooncake-faultlab/faultlab/sim"
)

func TestRegistry(t *testing.T) {
	var got []string
	for _, r := range engine.Registered() {
		got = append(got, r.Name)
		if e := r.New(engine.Options{Logger: slog.New(slog.DiscardHandler)}); e.Name() != r.Name {
			t.Errorf("engine registered as %q is named %q", r.Name, e.Name())
		}
	}
	want := []string{sim.Name, fakeengine.Name, realengine.Name}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("registered %q, want %q", got, want)
	}
	engs, err := engine.Build(" fake,sim,fake ", nil)
	if err != nil || len(engs) != 2 || engs[0].Name() != "fake" || engs[1].Name() != "sim" {
		t.Fatalf("Build: %v %v", engs, err)
	}
	for list, msg := range map[string]string{
		"sim,simm": `unknown engine "simm": valid engines are sim, fake, real`,
		" , ":      `no engine given: valid engines are sim, fake, real`,
	} {
		if _, err := engine.Build(list, nil); err == nil || err.Error() != msg {
			t.Errorf("Build(%q) = %v, want %s", list, err, msg)
		}
	}
}

// Real Mooncake is the reference other engines are measured against; the
// models are not, nor is a name nothing registered.
func TestIsReference(t *testing.T) {
	for name, want := range map[string]bool{realengine.Name: true, sim.Name: false, fakeengine.Name: false, "warp": false} {
		if got := engine.IsReference(name); got != want {
			t.Errorf("IsReference(%q) = %v, want %v", name, got, want)
		}
	}
}

// What each engine can do is what the CLI, explore and the runner ask for
// instead of its name.
func TestCaps(t *testing.T) {
	for name, want := range map[string]engine.Caps{
		sim.Name:        engine.Deterministic | engine.ModelsContainers,
		fakeengine.Name: engine.Containers,
		realengine.Name: engine.Reference | engine.Containers | engine.RealSGLang | engine.LocalBuild,
		"warp":          0,
	} {
		if got := engine.CapsOf(name); got != want {
			t.Errorf("CapsOf(%q) = %s, want %s", name, got, want)
		}
	}
	if got := engine.Model(); got != sim.Name {
		t.Errorf("Model() = %q, want %q", got, sim.Name)
	}
	for c, want := range map[engine.Caps]string{
		engine.Containers:                          "fake,real",
		engine.Deterministic:                       "sim",
		engine.Reference | engine.LocalBuild:       "real",
		engine.Deterministic | engine.Containers:   "",
		engine.ModelsContainers | engine.Reference: "",
	} {
		if got := strings.Join(engine.NamesWith(c), ","); got != want {
			t.Errorf("NamesWith(%s) = %q, want %q", c, got, want)
		}
	}
	if r, ok := engine.First(engine.RealSGLang); !ok || r.Name != realengine.Name {
		t.Errorf("First(RealSGLang) = %q %v, want %q", r.Name, ok, realengine.Name)
	}
	if _, ok := engine.First(engine.Deterministic | engine.Reference); ok {
		t.Error("First(Deterministic+Reference) found an engine; none is both")
	}
	if got := (engine.Reference | engine.LocalBuild).String(); got != "Reference+LocalBuild" {
		t.Errorf("String = %q", got)
	}
	if got := engine.Caps(0).String(); got != "none" {
		t.Errorf("String of no caps = %q", got)
	}
}

// Options.Containers reaches the engine an engine with a container
// capability builds (run --containers builds through the registry).
func TestOptionsContainers(t *testing.T) {
	for _, r := range engine.Registered() {
		for _, on := range []bool{false, true} {
			e := r.New(engine.Options{Containers: on})
			c, ok := e.(interface{ InContainers() bool })
			if !ok {
				t.Fatalf("%s: no InContainers", r.Name)
			}
			if c.InContainers() != on {
				t.Errorf("%s: New(Containers: %v).InContainers() = %v", r.Name, on, c.InContainers())
			}
		}
	}
}
