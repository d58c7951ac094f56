package faults_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/faults"
)

func TestValidate(t *testing.T) {
	cases := []struct {
		f    faults.Fault
		want string // "" = valid
	}{
		{faults.Fault{Kind: faults.MasterDown, Mode: faults.ModeRefuse}, ""},
		{faults.Fault{Kind: faults.MasterDown, Mode: "drop"}, `master-down "drop": mode must be one of refuse, blackhole`},
		{faults.Fault{Kind: faults.ClientDown, Mode: faults.ModeRefuse, Target: "x"}, `client-down: has no target (the link is implied); use kind link for other links`},
		{faults.Fault{Kind: faults.Link, Mode: faults.ModeLatency}, `link: target is required (master, metadata, client or a node name)`},
		{faults.Fault{Kind: faults.Link, Target: "master", Mode: "jam"}, `link "jam": mode must be one of ` + strings.Join(faults.LinkModes(), ", ")},
		{faults.Fault{Kind: faults.Link, Target: "master", Mode: faults.ModeLatency}, `link latency: latency must be > 0`},
		{faults.Fault{Kind: faults.Link, Target: "master", Mode: faults.ModeBandwidth}, `link bandwidth: rate_kbps must be > 0`},
		{faults.Fault{Kind: faults.Link, Target: "master", Mode: faults.ModeSlicer}, `link slicer: average_size must be > 0`},
		{faults.Fault{Kind: faults.Link, Target: "master", Mode: faults.ModeLimitData}, `link limit_data: bytes must be > 0`},
		{faults.Fault{Kind: faults.Link, Target: "master", Mode: faults.ModeLatency, Stream: "up", Params: faults.LatencyParams{Latency: time.Millisecond}}, `link "up": stream must be one of both, upstream, downstream`},
		{faults.Fault{Kind: faults.Process, Target: "etcd", Action: "stop"}, `process "etcd": target must be one of master, metadata, client, master-leader`},
		{faults.Fault{Kind: faults.Process, Target: "master", Action: "kill"}, `process "kill": action must be one of stop, start, restart, pause, resume`},
		{faults.Fault{Kind: "crash"}, `unknown fault kind "crash": valid kinds are client-down, container, link, master-down, metadata-down, process`},
		{faults.Fault{Kind: "metadata-dwn"}, `unknown fault kind "metadata-dwn" (did you mean "metadata-down"?): valid kinds are client-down, container, link, master-down, metadata-down, process`},
		{faults.Fault{Kind: faults.MasterDown, Mode: "refus"}, `master-down "refus": mode must be one of refuse, blackhole (did you mean "refuse"?)`},
		{faults.Fault{Kind: faults.Process, At: -1}, `process: at and for must not be negative`},
	}
	for _, c := range cases {
		err := c.f.Validate()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s: got %q, want %q", c.f, got, c.want)
		}
	}
}

func TestLinkTargetAndUndo(t *testing.T) {
	for f, want := range map[faults.Fault]string{
		{Kind: faults.MasterDown}:                "master",
		{Kind: faults.MetadataDown}:              "metadata",
		{Kind: faults.ClientDown}:                "client",
		{Kind: faults.Link, Target: "tp1"}:       "tp1",
		{Kind: faults.Process, Target: "master"}: "",
		{Kind: "unknown", Target: "master"}:      "",
	} {
		if got := f.LinkTarget(); got != want {
			t.Errorf("%s: LinkTarget %q, want %q", f, got, want)
		}
	}
	for action, undo := range map[string]string{"stop": "start", "pause": "resume", "restart": "", "start": "", "resume": "", "x": ""} {
		if got := faults.Undo(action); got != undo {
			t.Errorf("Undo(%s) = %q, want %q", action, got, undo)
		}
	}
}

// Every registered mode has docs and a toxic, except refuse (proxy stopped).
func TestEveryModeIsComplete(t *testing.T) {
	for _, m := range faults.Modes() {
		if m.Doc() == "" {
			t.Errorf("%s: no doc", m.Name())
		}
		typ, _, ok := m.Toxic(faults.Fault{Mode: m.Name()})
		if ok == (typ == "") {
			t.Errorf("%s: toxic %q but ok=%v", m.Name(), typ, ok)
		}
	}
}

func TestSimulate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		f    faults.Fault
		want faults.Effect
	}{
		{faults.Fault{Mode: faults.ModeRefuse}, faults.Effect{Verdict: faults.Refuse}},
		{faults.Fault{Mode: faults.ModeBlackhole}, faults.Effect{Verdict: faults.Blackhole}},
		// Both streams: the upstream's delay, then the downstream's (real: 2 × delay).
		{faults.Fault{Mode: faults.ModeResetPeer, Params: faults.ResetPeerParams{Delay: time.Second}}, faults.Effect{Verdict: faults.ResetPeer, Delay: 2 * time.Second}},
		{faults.Fault{Mode: faults.ModeResetPeer, Stream: "downstream", Params: faults.ResetPeerParams{Delay: time.Second}}, faults.Effect{Verdict: faults.ResetPeer, Delay: time.Second}},
		{faults.Fault{Mode: faults.ModeLatency, Params: faults.LatencyParams{Latency: 10 * time.Millisecond}}, faults.Effect{Delay: 20 * time.Millisecond}},
		{faults.Fault{Mode: faults.ModeLatency, Stream: "downstream", Params: faults.LatencyParams{Latency: 10 * time.Millisecond}}, faults.Effect{Delay: 10 * time.Millisecond}},
		{faults.Fault{Mode: faults.ModeBandwidth, Stream: "upstream", Params: faults.BandwidthParams{RateKBps: 1000}}, faults.Effect{Delay: time.Second}},
		// Two slices each way; the last slice's delay delays nothing.
		{faults.Fault{Mode: faults.ModeSlicer, Params: faults.SlicerParams{AverageSize: 500_000, Delay: time.Millisecond}}, faults.Effect{Delay: 2 * time.Millisecond}},
		{faults.Fault{Mode: faults.ModeLimitData, Stream: "upstream", Params: faults.LimitDataParams{Bytes: 1_500_000}}, faults.Effect{}},
		// Both directions: each pipe counts its own bytes.
		{faults.Fault{Mode: faults.ModeLimitData, Params: faults.LimitDataParams{Bytes: 1_500_000}}, faults.Effect{}},
	}
	for i, c := range cases {
		if got := faults.Simulate(c.f, rng, 1_000_000, 1_000_000); got != c.want {
			t.Errorf("%d %s: %+v, want %+v", i, c.f.Mode, got, c.want)
		}
	}
}

// The slicer on one connection, against real 0.3.13.post1's master RPCs
// through toxiproxy (average_size 64, delay 200 ms; REAL-FINDINGS §21):
// setup's ServiceReady 20/33, GetStorageConfig 20/41 and MountSegment
// 137/26 bytes took 1029 ms (5 delays), put's PutStart 195/126 and PutEnd
// 137/26 1409 ms (7), get's GetReplicaList 105/140 804 ms (4), is_exist's
// ExistKey 105/27 202 ms (1).
func TestSlicerOnAConnection(t *testing.T) {
	f := faults.Fault{Mode: faults.ModeSlicer, Params: faults.SlicerParams{AverageSize: 64, Delay: 200 * time.Millisecond}}
	cases := []struct {
		name string
		rpcs [][2]int64
		want time.Duration
	}{
		{"setup", [][2]int64{{20, 33}, {20, 41}, {137, 26}}, 1000 * time.Millisecond},
		{"put", [][2]int64{{195, 126}, {137, 26}}, 1400 * time.Millisecond},
		{"get", [][2]int64{{105, 140}}, 800 * time.Millisecond},
		{"is_exist", [][2]int64{{105, 27}}, 200 * time.Millisecond},
	}
	for _, c := range cases {
		e, _ := faults.EffectOf(f)
		conn := e.NewState()
		var now time.Duration
		for _, r := range c.rpcs {
			now += e.On(nil, now, conn, r[0], r[1]).Delay
		}
		if now != c.want {
			t.Errorf("%s: %v, want %v", c.name, now, c.want)
		}
	}
	// Halving, not ceil(n/average_size): 300 bytes are 4 slices of 75, not 3.
	if got := faults.Simulate(faults.Fault{Mode: faults.ModeSlicer, Stream: "upstream", Params: faults.SlicerParams{AverageSize: 100, Delay: time.Millisecond}}, nil, 300, 0).Delay; got != 3*time.Millisecond {
		t.Errorf("300 B at 100: %v, want 3ms", got)
	}
}

// limit_data on one connection, as toxiproxy's LimitDataToxic counts: per
// direction; a request that reaches the limit is closed without a reply, a
// reply that crosses it arrives torn; a reply that ends exactly at the
// limit arrives, and the connection is closed under the next call.
func TestLimitDataOnAConnection(t *testing.T) {
	f := faults.Fault{Mode: faults.ModeLimitData, Params: faults.LimitDataParams{Bytes: 100}}
	cases := []struct {
		name string
		rpcs [][2]int64
		want []faults.Verdict
	}{
		// Real 0.3.12.post1's setup RPCs (20/33, 20/41, 137/26): MountSegment's
		// request crosses 100 bytes upstream.
		{"setup", [][2]int64{{20, 33}, {20, 41}, {137, 26}}, []faults.Verdict{faults.Pass, faults.Pass, faults.Closed}},
		{"request reaches the limit", [][2]int64{{60, 10}, {40, 10}}, []faults.Verdict{faults.Pass, faults.Closed}},
		{"reply crosses the limit", [][2]int64{{10, 60}, {10, 41}}, []faults.Verdict{faults.Pass, faults.Closed}},
		{"reply ends at the limit", [][2]int64{{10, 60}, {10, 40}, {10, 1}}, []faults.Verdict{faults.Pass, faults.Pass, faults.Closed}},
	}
	for _, c := range cases {
		e, _ := faults.EffectOf(f)
		conn := e.NewState()
		for i, r := range c.rpcs {
			if got := e.On(nil, 0, conn, r[0], r[1]).Verdict; got != c.want[i] {
				t.Errorf("%s: rpc %d: %s, want %s", c.name, i, got, c.want[i])
			}
		}
	}
	// A fresh connection counts from zero.
	if got := faults.Simulate(f, nil, 99, 100).Verdict; got != faults.Pass {
		t.Errorf("fresh connection, 99/100 bytes: %s, want pass", got)
	}
}
