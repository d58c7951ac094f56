package sim_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// Issue 17 end to end: a 1 TiB global segment next to the host pool (the
// default allocator setting, mooncake) registers without a spurious
// overlap; a host pool beyond the node's RAM fails as on Linux.
func TestSegmentsAndHostRAM(t *testing.T) {
	for _, c := range []struct {
		name, node, segment string
		want                string // the outcome cell: codes, exception or death
	}{
		{"1 TiB segment, mooncake pool", "hostpool: {size: 1GiB}", "1024gb", "ok"},
		{"pool beyond default RAM, default allocator", "hostpool: {allocator: default, size: 65GiB}", "1gb",
			"RuntimeError: [enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate 69793218560 bytes. Error code 12 (Cannot allocate memory)"},
		{"pool within a node's larger RAM", "ram: 128GiB\n      hostpool: {allocator: default, size: 65GiB}", "1gb", "ok"},
		{"16 PiB pool, mooncake allocator", "hostpool: {size: 16384TiB}", "1gb", "RuntimeError: Failed to map shared memory: Cannot allocate memory"},
		{"pool beyond a small node's RAM, mooncake allocator", "ram: 8GiB\n      hostpool: {size: 9GiB}", "1gb", "died SIGKILL"},
	} {
		src := fmt.Sprintf(`name: t/ram
topology:
  nodes:
    - name: tp0
      %s
config:
  env: {MOONCAKE_MASTER: "{{master}}", MOONCAKE_PROTOCOL: tcp, MOONCAKE_GLOBAL_SEGMENT_SIZE: %s}
steps:
  - init: tp0
expect: {ok: true}
`, c.node, c.segment)
		sc, err := scenarios.Parse("ram.yaml", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		r := scenarios.RunVersion(context.Background(), sc, sim.New(), "0.3.13.post1", scenarios.Options{Seed: 1})
		got := "ok"
		switch o := r.Observed; {
		case o.Exception != nil:
			got = o.Exception.Class + ": " + o.Exception.Message
		case o.Died != nil:
			got = "died " + o.Died.Signal
		case r.Verdict != scenarios.Pass:
			got = r.Verdict + ": " + r.Reason
		}
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
