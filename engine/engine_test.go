package engine_test

import (
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
)

func TestNameOffNetwork(t *testing.T) {
	nodes := []string{"tp0", "tp1"}
	for _, c := range []struct {
		h    string
		want bool
	}{
		{"sglang-tp1-0", true},
		{"sglang-tp1-0:17777", true},
		{"tp1", false},
		{"tp0:17777", false},
		{"master", false},
		{"toxiproxy", false},
		{"localhost", false},
		{"127.0.0.1:17931", false},
		{"172.18.0.5", false},
		{"fe80::1", false},
		{"", false},
	} {
		if got := engine.NameOffNetwork(c.h, nodes); got != c.want {
			t.Errorf("NameOffNetwork(%q) = %v, want %v", c.h, got, c.want)
		}
	}
}

func TestLoopbackAcrossContainers(t *testing.T) {
	for _, tc := range []struct {
		nodes int
		host  string
		skip  bool
	}{
		{2, "localhost", true}, {2, "127.0.0.1:17000", true}, {2, "[::1]", true}, {2, "[::1]:17000", true}, {2, "::1", true},
		{2, "10.0.0.7", false}, {2, "[fd00::7]", false}, {1, "[::1]", false},
	} {
		err := engine.LoopbackAcrossContainers(tc.nodes, "tp0", map[string]string{"MOONCAKE_LOCAL_HOSTNAME": tc.host})
		if (err != nil) != tc.skip {
			t.Errorf("%d nodes, %q: %v, want skip %v", tc.nodes, tc.host, err, tc.skip)
		}
	}
}

// A container's PID 1 ignores abort()'s SIGABRT and faults in glibc's
// abort(); other deaths stay as they are.
func TestProcessDiedInContainer(t *testing.T) {
	for _, c := range []struct {
		in   engine.ProcessDied
		want string
	}{
		{engine.ProcessDied{Signal: "SIGABRT", Reason: "Check failed"}, "SIGSEGV"},
		{engine.ProcessDied{Signal: "SIGSEGV"}, "SIGSEGV"},
		{engine.ProcessDied{Signal: "SIGFPE"}, "SIGFPE"},
		{engine.ProcessDied{Exit: 1}, "exit 1"},
	} {
		in := c.in
		got := in.InContainer()
		if got.How() != c.want || got.Reason != c.in.Reason || in.How() != c.in.How() {
			t.Errorf("%s: InContainer() = %s (%q), the original now %s", c.in.How(), got.How(), got.Reason, in.How())
		}
	}
}
