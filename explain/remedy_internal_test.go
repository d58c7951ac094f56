package explain

import (
	"testing"

	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// What explain says a remedy changed, for the kinds of change a remedy
// makes: a node's env, container faults healed, a port freed, a host pool.
func TestRemedyWords(t *testing.T) {
	cat, err := scenarios.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, want string }{
		{"container/unresolvable-local-hostname",
			"on tp1 set MOONCAKE_LOCAL_HOSTNAME=tp1 → verified: starts, get [4096 4096], is_exist [1 1], put [0 0], setup [0 0]"},
		{"container/master-oom-killed",
			"a new master container without the memory limit; then init tp0, set tp0 2 pages, set tp0 12000 pages, health_check tp0 → verified: starts, batch_put_from 0, health_check 0, setup 0"},
		{"container/sglang-partitioned-during-puts",
			"reconnect tp0's container to the network; then init tp0, set tp0 2 pages, health_check tp0 → verified: starts, health_check 0, setup 0"},
		{"container/master-replaced-ip-configured",
			"set MOONCAKE_MASTER=<the master's address>; then init tp0, set tp0 2 pages, health_check tp0 → verified: starts, health_check 0, setup 0"},
		{"setup/http-metadata-port-in-use",
			"free port 18780 (stop the other process listening on it); restart mooncake_master → verified: starts, setup 0"},
		{"setup/master-metrics-port-in-use",
			"free port 18790 (stop the other process listening on it); restart mooncake_master → verified: starts, setup 0"},
		{"version/master-skew",
			"run mooncake_master of the clients' release; then init tp0, set tp0 2 pages, get tp0 2 pages → verified: starts, setup 0"},
		{"register/standalone-draft-default-allocator",
			"host pool on tp0: allocator mooncake, draft pool of its own (mooncake) → verified: starts, register_buffer [0 0], setup [], setup_dummy 0"},
	} {
		sc := find(cat, c.name)
		if sc == nil {
			t.Fatalf("%s: not in the catalog", c.name)
		}
		if got := Humanize(Remedy(sc)); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}
