package main

import (
	"strings"
	"testing"
)

// Completion through cobra's __complete, as a shell asks for it: the
// candidates (one a line, a description after a tab) and the directive.
func TestCompletion(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // the candidates' values, joined by spaces
		dir  string // the directive line
	}{
		{[]string{"run", "setup/tenant"}, "setup/tenant-unsupported", ":0"},
		{[]string{"run", "contain"}, "container/", ":2"},
		{[]string{"run", ""}, "container/ etcd/ io/ register/ setup/ standalone/ version/", ":2"},
		{[]string{"show", "standalone/"}, "standalone/buffer-outside-shm standalone/decode-offload-pool-allocator standalone/default-allocator standalone/draft-pool-allocator-by-release standalone/ipc-register-client-vmem-limit standalone/ipc-register-metadata-refused standalone/mha-pool-halves standalone/mooncake-without-host-allocator standalone/native-lib-missing-client standalone/no-client-listening standalone/root-fs-dir-read-without-local-buffer standalone/ssd-offload-disk-descriptor standalone/ssd-offload-heartbeat-client-expired standalone/ssd-offload-master-restart standalone/ssd-offload-read-stalls-client", ":4"},
		{[]string{"show", "standalone/def"}, "standalone/default-allocator", ":4"},
		{[]string{"show", "setup/tenant-unsupported", ""}, "", ":4"},
		{[]string{"list", "--label", "contai"}, "container", ":4"},
		{[]string{"run", "--label", "!need"}, "!needs-ascend !needs-gpu !needs-rdma-hw", ":4"},
		{[]string{"run", "--engine", ""}, "sim fake real", ":6"},
		{[]string{"run", "--engine", "sim,f"}, "sim,fake", ":6"},
		{[]string{"run", "--engine", "sim,"}, "sim,fake sim,real", ":6"},
		{[]string{"explore", "--engine", "sim,r"}, "sim,real", ":6"},
		{[]string{"run", "--mooncake-version", "0.3.13"}, "0.3.13 0.3.13.post1", ":4"},
		{[]string{"explain", "--mooncake-version", "0.3.9"}, "0.3.9", ":4"},
		{[]string{"run", "--sglang-version", "0.5.2"}, "0.5.23", ":4"},
		{[]string{"run", "--sglang", "model,"}, "model,real", ":6"},
		{[]string{"replay", "--scenario", "io/happy"}, "io/happy-path", ":4"},
	} {
		out, _, err := executeIn(t, "", append([]string{"__complete"}, c.args...)...)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		var vals []string
		for _, l := range lines[:len(lines)-1] {
			v, _, _ := strings.Cut(l, "\t")
			vals = append(vals, v)
		}
		if got := strings.Join(vals, " "); got != c.want || lines[len(lines)-1] != c.dir {
			t.Errorf("__complete %v: %q %s, want %q %s", c.args, got, lines[len(lines)-1], c.want, c.dir)
		}
	}
}
