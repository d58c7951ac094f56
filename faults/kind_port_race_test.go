package faults_test

import (
	"testing"

	"github.com/mooncake-faultlab/faultlab/faults"
)

func TestPortRaceKind(t *testing.T) {
	if err := (faults.Fault{Kind: faults.PortRace}).Validate(); err != nil {
		t.Fatal(err)
	}
	want := `port-race: takes no target, mode or action (e.g. {at: 0s, kind: port-race})`
	if err := (faults.Fault{Kind: faults.PortRace, Target: "master"}).Validate(); err == nil || err.Error() != want {
		t.Fatalf("%v, want %q", err, want)
	}
	p, err := faults.Lower(faults.Fault{Kind: faults.PortRace})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.(faults.PortRacePrimitive); !ok {
		t.Fatalf("%#v", p)
	}
}
