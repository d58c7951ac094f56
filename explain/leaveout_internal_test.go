package explain

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/fieldlogs"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// TestLeaveClassOut measures on the tuning cases what a held-out log
// meets most often: a cause explain does not know. Each tuning case is
// diagnosed with its labelled cause taken out - the class, the scenarios
// it links, and the classes that link the labelled scenario - so the
// right answer is "no cause fits"; naming any cause is a confident wrong
// answer of the kind the blind batches count. The ceiling is today's
// number: a change to explain may lower it, never raise it; a new batch
// adds the count of its own cases.
func TestLeaveClassOut(t *testing.T) {
	if testing.Short() {
		t.Skip("diagnoses every tuning case against a reduced catalog (about a minute)")
	}
	cat, err := scenarios.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	fp := Fingerprint(context.Background(), cat, sim.New(), "")
	cls, err := Classes()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := fieldlogs.Load()
	if err != nil {
		t.Fatal(err)
	}
	n, wrong := 0, 0
	for _, c := range cs {
		if c.Heldout {
			continue
		}
		gone := map[string]bool{c.Class: true}
		for _, cl := range cls {
			if cl.Name == c.Class || cl.Explains(c.Class) || cl.KindOf == c.Class {
				gone[cl.Name] = true
				for _, s := range cl.Scenarios {
					gone[s] = true
				}
			}
		}
		kcat := slices.DeleteFunc(slices.Clone(cat), func(s *scenarios.Scenario) bool { return gone[s.Name] })
		kcls := slices.DeleteFunc(slices.Clone(cls), func(cl Class) bool { return gone[cl.Name] })
		kfp := Fingerprints{}
		for k, v := range fp {
			if !gone[k.Scenario] {
				kfp[k] = v
			}
		}
		d, err := diagnose(kcat, kfp, kcls, c.Log, "")
		if err != nil {
			t.Fatal(err)
		}
		n++
		if d.Verdict == "cause" {
			wrong++
			t.Logf("%-45s without %-35s named %s (%.2f)", c.ID, c.Class, d.Causes[0].Name, d.Causes[0].Points)
			if os.Getenv("FAULTLAB_LEAVEOUT_EVIDENCE") != "" {
				t.Logf("    evidence %q against %q", d.Causes[0].Evidence, d.Causes[0].Against)
			}
		}
	}
	t.Logf("leave-class-out: %d tuning cases, %d named a cause (%.0f%%)", n, wrong, 100*float64(wrong)/float64(max(1, n)))
	if wrong > leaveOutCeiling {
		t.Errorf("%d tuning logs name a cause with their own taken out, ceiling %d", wrong, leaveOutCeiling)
	}
}

// 6 over the first 99 tuning cases; 9 with the sixteenth batch, whose
// logs without their class name a neighbour: Mooncake PR 2077's master
// restart the expired client's world (the same three lines), Mooncake#2300's
// self-device link the Ascend peer link's, sglang#27730's NIC pair a
// transfer timeout at the threshold; 10 with the eighteenth, whose
// sglang#13380 (a retry counter exceeded, then the RNIC inactive) without
// rdma-transfer-error names the unroutable GID's world, as Mooncake#1593
// names a port that is down without its own; 12 with the nineteenth, whose
// Mooncake PR 1939 (an offload read-back's failed transfer) and PR 3974
// (an Ascend submit without a context) without their classes reach the
// threshold exactly (4.00) on the transfer failure's own lines; 13 when two
// worlds joined the catalog (io/te-handshake-stray-connection,
// setup/tent-env-without-tent-build) and every line's rarity moved:
// Mooncake#541's etcd descriptor refused, without its class, names the
// eRDMA registration world at 4.00 (a sibling: a segment's registration
// refused, then the mount); 14 with PD's KV transfers over RDMA
// (io/rdma-work-completion-error-pd, io/rdma-multi-nic-unroutable-pair-pd):
// vLLM-Ascend#7846's batch timeout, without transfer-timeout, names the
// PD NIC pair's world, whose failing submissions end in that line; 15
// with v0.3.12's port flap (io/rdma-port-flap-recovery-delay): LMCache#1993's
// AddressNotRegistered, without buffer-not-registered, names that world,
// whose inactive RNIC refuses the submits with the same two lines.
const leaveOutCeiling = 15
