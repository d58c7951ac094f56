package faults_test

import (
	"testing"

	"github.com/mooncake-faultlab/faultlab/faults"
)

func TestPortHeldKind(t *testing.T) {
	for _, c := range []struct {
		f    faults.Fault
		want string
	}{
		{faults.Fault{Kind: faults.PortHeld, Params: faults.PortHeldParams{Port: 17782}}, ""},
		{faults.Fault{Kind: faults.PortHeld}, `port-held: port 0: give a TCP port, 1024-65535 (e.g. port: 17782)`},
		{faults.Fault{Kind: faults.PortHeld, Params: faults.PortHeldParams{Port: 65536}}, `port-held: port 65536: give a TCP port, 1024-65535 (e.g. port: 17782)`},
		{faults.Fault{Kind: faults.PortHeld, Target: "master", Params: faults.PortHeldParams{Port: 17782}}, `port-held: takes no target, mode or action, only port (e.g. port: 17782)`},
	} {
		got := ""
		if err := c.f.Validate(); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%+v: %q, want %q", c.f, got, c.want)
		}
	}
	p, err := faults.Lower(faults.Fault{Kind: faults.PortHeld, Params: faults.PortHeldParams{Port: 17782}})
	if err != nil {
		t.Fatal(err)
	}
	if h, ok := p.(faults.PortPrimitive); !ok || h.Port != 17782 {
		t.Fatalf("%#v", p)
	}
}
