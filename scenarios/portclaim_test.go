package scenarios

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

func TestFixedPortRanges(t *testing.T) {
	s := func(v string) *string { return &v }
	for _, tc := range []struct {
		name string
		sc   Scenario
		want [][2]int
	}{
		{"none", Scenario{}, nil},
		{"one-port range and the remedy's eight", Scenario{Config: Config{Env: Env{"MC_MIN_PRC_PORT": s("14970"), "MC_MAX_PRC_PORT": s("14970")}},
			Remedy: &Remedy{Env: Env{"MC_MIN_PRC_PORT": s("14972"), "MC_MAX_PRC_PORT": s("14979")}}}, [][2]int{{14970, 14970}, {14972, 14979}}},
		{"inverted pair, both names, merged", Scenario{Config: Config{Env: Env{"MC_MIN_RPC_PORT": s("16000"), "MC_MAX_RPC_PORT": s("15999"),
			"MC_MIN_PRC_PORT": s("16000"), "MC_MAX_PRC_PORT": s("16001")}}}, [][2]int{{15999, 16001}}},
		{"a missing partner is the default", Scenario{Topology: Topology{Nodes: []Node{{Env: Env{"MC_MIN_RPC_PORT": s("16990")}}}}}, [][2]int{{16990, 17000}}},
		{"the master's fixed metadata port, beside a range", Scenario{Topology: Topology{Metadata: "master", Master: &Master{HTTPMetadataPort: 18780}},
			Config: Config{Env: Env{"MC_MIN_RPC_PORT": s("16990")}}}, [][2]int{{16990, 17000}, {18780, 18780}}},
		{"wide, unset, out of range or not a number: no claim", Scenario{Config: Config{Env: Env{"MC_MIN_RPC_PORT": s("15000"), "MC_MAX_RPC_PORT": s("15100"),
			"MC_MIN_PRC_PORT": nil, "MC_MAX_PRC_PORT": s("x")}}, Remedy: &Remedy{Env: Env{"MC_MIN_PRC_PORT": s("99999"), "MC_MAX_PRC_PORT": s("99999")}}}, nil},
	} {
		if got := fixedPortRanges(&tc.sc); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A second run of a scenario with fixed ports waits for the first.
func TestClaimFixedPortsWaits(t *testing.T) {
	s := func(v string) *string { return &v }
	sc := &Scenario{Config: Config{Env: Env{"MC_MIN_RPC_PORT": s("6"), "MC_MAX_RPC_PORT": s("7")}}}
	release, err := claimFixedPorts(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	if _, err := claimFixedPorts(ctx, sc); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second claim: %v, want the deadline", err)
	}
}

// heldAtStart: the ports of the port-held faults at the world's start,
// once each; later or anchored ones and other kinds are not.
func TestHeldAtStart(t *testing.T) {
	sc, err := Parse("f.yaml", []byte(validScenario+`faults:
  - {at: 0s, kind: port-held, port: 18780}
  - {at: 0s, kind: port-held, port: 18780}
  - {at: 2s, kind: port-held, port: 18781}
  - {after: step 1, at: 0s, kind: port-held, port: 18782}
  - {at: 0s, kind: port-held, port: 18783}
  - {at: 0s, kind: master-down, mode: refuse}
`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := heldAtStart(sc.Faults), []int{18780, 18783}; !slices.Equal(got, want) {
		t.Errorf("heldAtStart = %v, want %v", got, want)
	}
}
