package sim_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/sim"
	"github.com/mooncake-faultlab/faultlab/trace"
)

// TestMetadataPortHeldAtStart: the master's embedded HTTP metadata port
// held by another process before the master starts (WorldSpec.HeldPorts,
// topology.master.http_metadata_port), as real mooncake_master did
// (docs/REAL-FINDINGS.md §90, §113): 0.3.14 aborts and setup finds no
// master; 0.3.11.post1 serves on, the holder takes the metadata PUT and
// never answers. Clearing the fault frees the port: 0.3.14's master
// starts again; 0.3.11.post1's, left running, never bound it, so the URL
// is refused until the master is restarted.
func TestMetadataPortHeldAtStart(t *testing.T) {
	const port = 18780
	for _, c := range []struct {
		version    string
		masterLine string // the master's last line at start
		setupLine  string // the store's line of the failed setup
		afterClear int    // setup after ClearFaults
	}{
		{"0.3.14", "Failed to start HTTP metadata server", "Client not available", 0},
		{"0.3.12.post1", "Failed to start HTTP metadata server", "Client not available", 0},
		{"0.3.11.post1", "C++ HTTP metadata server started successfully", "curl: Timeout was reached err: Operation timed out after 3000 milliseconds with 0 bytes received", -600},
	} {
		ctx := context.Background()
		tr := trace.New(nil)
		spec := engine.WorldSpec{Scenario: "spec", Seed: 1, Version: c.version, Trace: tr, Metadata: "master",
			Master:    &engine.MasterSpec{Flags: map[string]string{"http_metadata_server_host": "0.0.0.0"}, MetadataPort: port},
			HeldPorts: []int{port}, Nodes: []engine.NodeSpec{{Name: "tp0"}}}
		w, err := sim.Launch(ctx, spec)
		if err != nil {
			t.Fatalf("%s: %v", c.version, err)
		}
		held := faults.Fault{Kind: faults.PortHeld, Params: faults.PortHeldParams{Port: port}}
		if err := w.Arm(ctx, []faults.Fault{held}); err != nil {
			t.Fatalf("%s: arm: %v", c.version, err)
		}
		n := 0
		setup := func() int {
			n++ // a new local_hostname port each: the earlier processes live on
			p, err := w.StartProcess(ctx, "tp0", nil)
			if err != nil {
				t.Fatalf("%s: %v", c.version, err)
			}
			s, err := p.NewStore(ctx)
			if err != nil {
				t.Fatalf("%s: %v", c.version, err)
			}
			code, err := s.Setup(ctx, engine.SetupArgs{LocalHostname: "127.0.0.1:" + strconv.Itoa(17795+n), MetadataServer: sim.MetadataURL,
				GlobalSegmentSize: 16 << 20, LocalBufferSize: 16 << 20, Protocol: "tcp", MasterServerAddr: sim.MasterAddr})
			if err != nil {
				t.Fatalf("%s: setup: %v", c.version, err)
			}
			return code
		}
		if code := setup(); code != -600 {
			t.Errorf("%s: setup = %d, want -600", c.version, code)
		}
		var master []string
		for _, e := range tr.Events() {
			if e.Kind == "log" && e.Source == "master" && strings.Contains(e.Text, "HTTP metadata server") {
				master = append(master, e.Text)
			}
		}
		if len(master) == 0 || master[len(master)-1] != c.masterLine {
			t.Errorf("%s: the master's metadata lines %q, want the last %q", c.version, master, c.masterLine)
		}
		if !slices.ContainsFunc(tr.Logs(), func(l string) bool { return strings.Contains(l, c.setupLine) }) {
			t.Errorf("%s: no line %q in %q", c.version, c.setupLine, tr.Logs())
		}
		if err := w.ClearFaults(ctx); err != nil {
			t.Fatalf("%s: clear: %v", c.version, err)
		}
		if code := setup(); code != c.afterClear {
			t.Errorf("%s: setup after the port is freed = %d, want %d", c.version, code, c.afterClear)
		}
		if err := w.ReplaceMaster(ctx, "", nil, nil); err != nil {
			t.Fatalf("%s: restart the master: %v", c.version, err)
		}
		if code := setup(); code != 0 {
			t.Errorf("%s: setup after the master's restart = %d, want 0", c.version, code)
		}
		_ = w.Close(ctx)
	}
}
