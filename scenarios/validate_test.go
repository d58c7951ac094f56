package scenarios

import (
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
)

// Validate applies the loader's checks to a built scenario: the decoder's
// value checks (enums, env beyond int64, negative durations) and
// validate's, with the file named; a valid scenario gets the defaults.
func TestValidate(t *testing.T) {
	big := "99999999999999999999"
	valid := func() *Scenario {
		return &Scenario{Name: "gen/x", Steps: []Step{{Action: StepInit, Node: "tp0"}}, Expect: Expect{Invariants: true}}
	}
	for _, tc := range []struct {
		name string
		edit func(*Scenario)
		want string
	}{
		{"enum", func(sc *Scenario) { sc.Topology.Metadata = "zk" },
			`gen.yaml:0:0: topology.metadata: "zk" is not one of P2PHANDSHAKE, http, master, etcd`},
		{"enum in a list", func(sc *Scenario) { sc.Engines = []string{"sim", "simm"} },
			`gen.yaml:0:0: engines: "simm" is not one of ` + joinNames() + ` (did you mean "sim"?)`},
		{"nested enum", func(sc *Scenario) {
			sc.Topology.Nodes = []Node{{Name: "tp0", HostPool: HostPool{Draft: &HostPool{Layout: "GQA"}}}}
		}, `gen.yaml:0:0: topology.nodes[0].hostpool.draft.layout: "GQA" is not one of MHA, MLA`},
		{"env beyond int64", func(sc *Scenario) { sc.Config.Env = Env{"MOONCAKE_GLOBAL_SEGMENT_SIZE": &big} },
			`gen.yaml:0:0: config.env.MOONCAKE_GLOBAL_SEGMENT_SIZE: "99999999999999999999": ` + beyondInt64},
		{"negative duration", func(sc *Scenario) { sc.Steps = []Step{{Action: StepSleep, Sleep: -1}} },
			`gen.yaml:0:0: steps[0].sleep: bad duration "-1ns": must not be negative`},
		{"loader check", func(sc *Scenario) { sc.Name = "Bad Name" },
			`gen.yaml:0:0: name "Bad Name": use lower-case words separated by / . _ - (e.g. setup/master-down-refused)`},
	} {
		sc := valid()
		tc.edit(sc)
		err := Validate("gen.yaml", sc)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: err = %v\nwant %s", tc.name, err, tc.want)
		}
	}
	sc := valid()
	if err := Validate("gen.yaml", sc); err != nil {
		t.Fatal(err)
	}
	if sc.Topology.Metadata != "P2PHANDSHAKE" || sc.Storage.Backend != "kv" || len(sc.Topology.Nodes) != 1 {
		t.Fatalf("defaults not applied: %+v", sc.Topology)
	}
}

func joinNames() string {
	s := ""
	for i, n := range engine.Names() {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}
