package engine_test

import (
	"log/slog"
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
		if e := r.New(slog.New(slog.DiscardHandler)); e.Name() != r.Name {
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
