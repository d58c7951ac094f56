package explore

import (
	"testing"

	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// CoverageSeeds is how many seeds must draw every knob of the table in
// every value class (the nightly gates on `faultlab explore --coverage`).
const CoverageSeeds = 3000

func TestGeneratorCoversKnobTable(t *testing.T) {
	for _, wall := range []bool{false, true} {
		c := KnobCoverage(1, CoverageSeeds, GenOptions{Wall: wall})
		var missing []string
		for _, m := range c.Missing {
			if wall && wallExcluded(m) {
				continue
			}
			missing = append(missing, m)
		}
		if len(missing) > 0 {
			t.Errorf("wall=%v: never drawn in %d seeds: %v", wall, CoverageSeeds, missing)
		}
	}
}

// wallExcluded: knob classes a wall engine's scenarios leave out (usable):
// RDMA, fixed timeouts and retries, big segments, the HA pair, and
// MC_LOG_DIR (real moves glog to files; the model does not).
func wallExcluded(m string) bool {
	switch m {
	case "MC_RPC_TIMEOUT_MS/valid", "MC_RPC_TIMEOUT_MS/boundary", "MC_RPC_TIMEOUT_MS/invalid",
		"MC_RPC_CONNECT_TIMEOUT_MS/valid", "MC_RPC_CONNECT_TIMEOUT_MS/boundary", "MC_RPC_CONNECT_TIMEOUT_MS/invalid",
		"MC_STORE_CLIENT_SETUP_RETRIES/valid", "MC_STORE_CLIENT_SETUP_RETRIES/boundary", "MC_STORE_CLIENT_SETUP_RETRIES/invalid",
		"MC_STORE_USE_HUGEPAGE/valid", "MC_STORE_USE_HUGEPAGE/boundary", "MC_STORE_USE_HUGEPAGE/invalid",
		"MOONCAKE_PROTOCOL/valid", "MOONCAKE_PROTOCOL/boundary", "MOONCAKE_PROTOCOL/invalid",
		"MOONCAKE_DEVICE/valid", "MOONCAKE_DEVICE/boundary", "MOONCAKE_DEVICE/invalid",
		"MOONCAKE_MASTER/boundary",
		"MC_LOG_DIR/valid", "MC_LOG_DIR/boundary", "MC_LOG_DIR/invalid":
		return true
	}
	return false
}

// The other dimensions vary draws: storage with tp_size > 1, etcd and an
// HA pair, two RNICs, after:-anchored faults, every hostname form.
func TestGeneratorVariesTopology(t *testing.T) {
	var tp, etcd, ha, nics, after int
	hosts := map[string]bool{}
	for s := uint64(1); s <= CoverageSeeds; s++ {
		d := Generate(s, GenOptions{})
		if d.Storage != nil && d.Storage.TPSize > 1 {
			tp++
		}
		if d.Topology.Metadata == "etcd" {
			etcd++
		}
		if d.Topology.Master != nil && d.Topology.Master.HA {
			ha++
		}
		for _, n := range d.Topology.Nodes {
			if n.NIC != nil && len(n.NIC.RDMA) > 1 {
				nics++
			}
		}
		for _, f := range d.Faults {
			if f.After != "" {
				after++
			}
		}
		for _, k := range d.Knobs {
			if k.Knob == "MOONCAKE_LOCAL_HOSTNAME" {
				hosts[k.Value] = true
			}
		}
	}
	if tp == 0 || etcd == 0 || ha == 0 || nics == 0 || after == 0 {
		t.Errorf("in %d seeds: tp_size>1 %d, etcd %d, HA %d, 2 RNICs %d, after: %d", CoverageSeeds, tp, etcd, ha, nics, after)
	}
	k, _ := mooncake.KnobByName("MOONCAKE_LOCAL_HOSTNAME")
	for _, cl := range mooncake.ValueClasses {
		for _, v := range k.Samples[cl] {
			if !hosts[v] {
				t.Errorf("local_hostname %q never drawn", v)
			}
		}
	}
}

// An invalid master flag is Mooncake's answer (the master exits), not a
// harness error.
func TestMasterRejectsFlag(t *testing.T) {
	for reason, want := range map[string]bool{
		"launch: sim: mooncake_master exited (exit status 1): ERROR: illegal value '5s' specified for uint64 flag 'default_kv_lease_ttl'":                                           true,
		"launch: real engine: mooncake_master 0.3.11.post1 not ready: 127.0.0.1:1: process exited (exit status 1); last lines: [Invalid value for --default_kv_lease_ttl: 5sec. …]": true,
		"launch: sim: mooncake_master: unknown command line flag 'x'":                                                                                                               false,
		"harness panic in main phase: invalid argument to IntN":                                                                                                                     false,
	} {
		if got := MasterRejectsFlag(reason); got != want {
			t.Errorf("MasterRejectsFlag(%q) = %v", reason, got)
		}
	}
}

// --weight config: every scenario carries 1–3 draws of the knob table (the
// unweighted generator leaves about 40% without any).
func TestWeightConfigDrawsEveryScenario(t *testing.T) {
	for _, wall := range []bool{false, true} {
		none := 0
		for s := uint64(1); s <= 1000; s++ {
			if tableDraws(Generate(s, GenOptions{Wall: wall})) == 0 {
				none++
			}
			if n := tableDraws(Generate(s, GenOptions{Wall: wall, Config: true})); n < 1 || n > 3 {
				t.Errorf("wall=%v seed %d: %d knob draws with Config, want 1–3", wall, s, n)
			}
		}
		if none < 300 {
			t.Errorf("wall=%v: %d of 1000 unweighted seeds drew no knob, want >= 300 (the weight must change something)", wall, none)
		}
	}
}

// tableDraws counts the draws knobs() made: not the sidecar's
// MOONCAKE_CLIENT nor the HA pair's MOONCAKE_MASTER, which vary draws.
func tableDraws(d *Doc) int {
	n := 0
	for _, k := range d.Knobs {
		if k.Value != "{{client}}" && k.Value != "etcd://{{etcd}}" {
			n++
		}
	}
	return n
}

// No metadata: master below mooncake.EmbeddedMetadataSince (seed 30037).
func TestGeneratorEmbeddedMetadataVersions(t *testing.T) {
	master := 0
	for s := uint64(1); s <= 3000; s++ {
		d := Generate(s, GenOptions{Config: true})
		if d.Topology.Metadata != "master" {
			continue
		}
		master++
		if v := d.Mooncake.Versions[0]; !mooncake.MustVersion(v).AtLeast(mooncake.EmbeddedMetadataSince) {
			t.Fatalf("seed %d: metadata master at %s", s, v)
		}
	}
	if master == 0 {
		t.Fatal("no seed drew metadata master")
	}
}
