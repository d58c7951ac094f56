package faults_test

import (
	"math/rand/v2"
	"slices"
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
		{faults.Fault{Kind: faults.Process, Target: "master", Action: "kill"}, `process "kill": action must be one of stop, start, restart, pause, resume, vanish`},
		{faults.Fault{Kind: faults.Process, Target: "metadata", Action: faults.Vanish}, `process "vanish": target metadata: a vanished address is modelled for an HA master only (target master or master-leader)`},
		{faults.Fault{Kind: "crash"}, `unknown fault kind "crash": valid kinds are ` + strings.Join(faults.KindNames(), ", ")},
		{faults.Fault{Kind: "metadata-dwn"}, `unknown fault kind "metadata-dwn" (did you mean "metadata-down"?): valid kinds are ` + strings.Join(faults.KindNames(), ", ")},
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

// Every registered mode has docs and a toxic, or stops the proxy
// (refuse), or says why toxiproxy cannot inject it; every parameter has a
// doc and explore choices that parse.
func TestEveryModeIsComplete(t *testing.T) {
	for _, m := range faults.Modes() {
		if m.Doc() == "" {
			t.Errorf("%s: no doc", m.Name())
		}
		f := faults.Fault{Kind: faults.Link, Target: "master", Mode: m.Name()}
		typ, _, ok := m.Toxic(f)
		if ok == (typ == "") {
			t.Errorf("%s: toxic %q but ok=%v", m.Name(), typ, ok)
		}
		avail := faults.Available(f, faults.Capabilities{Toxiproxy: true})
		if want := !ok && !m.StopsProxy(); (avail != nil) != want {
			t.Errorf("%s: toxic %v, stops proxy %v, but Available on toxiproxy = %v", m.Name(), ok, m.StopsProxy(), avail)
		}
		if err := faults.Available(f, faults.Capabilities{}); err != nil {
			t.Errorf("%s: not available on a simulated link: %v", m.Name(), err)
		}
		for _, p := range faults.ParamFields(m.Params()) {
			if p.Doc == "" || len(p.Gen) == 0 {
				t.Errorf("%s.%s: doc %q, gen %q", m.Name(), p.Name, p.Doc, p.Gen)
			}
			for _, g := range p.Gen {
				if g == "" {
					continue
				}
				if err := faults.NewParams(m.Params()).Set(p.Name, g); err != nil {
					t.Errorf("%s.%s: gen choice %q: %v", m.Name(), p.Name, g, err)
				}
			}
		}
	}
}

// Parameters decode by their tags, print in traces as the flat fault did
// (the catalog's sim trace hashes depend on it), and scale by their types.
func TestParams(t *testing.T) {
	set := faults.NewParams(faults.ParamsOf(faults.Link, faults.ModeLatency))
	if got := set.Keys(); strings.Join(got, ",") != "latency,jitter" {
		t.Fatalf("keys %v", got)
	}
	for _, c := range []struct{ k, v, err string }{
		{"latency", "200ms", ""}, {"jitter", "5ms", ""},
		{"latency", "30", `bad duration "30": want a number with a unit, one of ns, us, ms, s, m, h (e.g. 30s, 100ms)`},
		{"latency", "-1s", `bad duration "-1s": must not be negative`},
		{"bytes", "1", `unknown key "bytes"`},
	} {
		got := ""
		if err := set.Set(c.k, c.v); err != nil {
			got = err.Error()
		}
		if got != c.err {
			t.Errorf("Set(%s, %s) = %q, want %q", c.k, c.v, got, c.err)
		}
	}
	lat := faults.Fault{Kind: faults.Link, Target: "master", Mode: faults.ModeLatency, Params: set.Value(), For: time.Second}
	if got, want := lat.String(), "link target=master mode=latency latency=200ms jitter=5ms for=1s"; got != want {
		t.Errorf("String %q, want %q", got, want)
	}
	for _, c := range []struct {
		f    faults.Fault
		want string
	}{
		{faults.Fault{Kind: faults.Link, Target: "master", Mode: faults.ModeBandwidth, Params: faults.BandwidthParams{RateKBps: 100}}, "link target=master mode=bandwidth rate=100KB/s"},
		{faults.Fault{Kind: faults.Link, Target: "master", Mode: faults.ModeLimitData, Stream: "upstream", Params: faults.LimitDataParams{Bytes: 100}}, "link target=master mode=limit_data stream=upstream bytes=100"},
		{faults.Fault{Kind: faults.Link, Target: "master", Mode: faults.ModeSlicer, Params: faults.SlicerParams{AverageSize: 64, Delay: time.Second}}, "link target=master mode=slicer"},
		{faults.Fault{Kind: faults.Container, Target: "master", Action: "memory", Params: faults.ContainerParams{Bytes: 8}}, "container target=master action=memory bytes=8"},
	} {
		if got := c.f.String(); got != c.want {
			t.Errorf("String %q, want %q", got, c.want)
		}
	}
	half := func(d time.Duration) time.Duration { return d / 2 }
	third := func(r int64) int64 { return r / 3 }
	if got := faults.MapParams(faults.SlicerParams{AverageSize: 64, SizeVariation: 8, Delay: time.Second}, half, third); got != (faults.SlicerParams{AverageSize: 64, SizeVariation: 8, Delay: 500 * time.Millisecond}) {
		t.Errorf("slicer scaled: %+v", got)
	}
	if got := faults.MapParams(faults.BandwidthParams{RateKBps: 90}, half, third); got != (faults.BandwidthParams{RateKBps: 30}) {
		t.Errorf("bandwidth scaled: %+v", got)
	}
	if got := faults.ParamValues(faults.SlicerParams{AverageSize: 64, Delay: time.Second}); len(got) != 2 || got["average_size"] != int64(64) || got["delay"] != "1s" {
		t.Errorf("ParamValues %v", got)
	}
	// Parameters of another owner are refused.
	bad := faults.Fault{Kind: faults.Link, Target: "master", Mode: faults.ModeLatency, Params: faults.BandwidthParams{RateKBps: 1}}
	if err := bad.Validate(); err == nil || err.Error() != "link latency: latency must be > 0" {
		t.Errorf("foreign params: %v", err)
	}
	bad.Params = faults.SlowCloseParams{}
	bad.Mode = faults.ModeResetPeer
	if err := bad.Validate(); err == nil || err.Error() != "link: parameters faults.SlowCloseParams do not belong to it" {
		t.Errorf("foreign params: %v", err)
	}
}

// Each kind lowers to the primitive engines implement.
func TestLower(t *testing.T) {
	for _, c := range []struct {
		f    faults.Fault
		want faults.Primitive
	}{
		{faults.Fault{Kind: faults.MasterDown, Mode: faults.ModeRefuse}, faults.LinkPrimitive{Target: "master"}},
		{faults.Fault{Kind: faults.ClientDown, Mode: faults.ModeBlackhole}, faults.ProcessPrimitive{Target: "client", Action: "pause", Undo: "resume"}},
		{faults.Fault{Kind: faults.ClientDown, Mode: faults.ModeRefuse}, faults.ProcessPrimitive{Target: "client", Action: "stop", Undo: "start"}},
		{faults.Fault{Kind: faults.Link, Target: "tp1", Mode: faults.ModeLatency}, faults.LinkPrimitive{Target: "tp1"}},
		{faults.Fault{Kind: faults.Process, Target: "metadata", Action: "restart"}, faults.ProcessPrimitive{Target: "metadata", Action: "restart"}},
	} {
		p, err := faults.Lower(c.f)
		if err != nil {
			t.Fatal(err)
		}
		if p.Source() != c.f {
			t.Errorf("%s: source %s", c.f, p.Source())
		}
		switch w := c.want.(type) {
		case faults.LinkPrimitive:
			w.Fault = c.f
			c.want = w
		case faults.ProcessPrimitive:
			w.Fault = c.f
			c.want = w
		}
		if p != c.want {
			t.Errorf("%s: %+v, want %+v", c.f, p, c.want)
		}
	}
	c := faults.Fault{Kind: faults.Container, Target: "master, tp0", Action: "pause"}
	p, _ := faults.Lower(c)
	if cp, ok := p.(faults.ContainerPrimitive); !ok || strings.Join(cp.Targets, ",") != "master,tp0" || cp.Undo != "unpause" {
		t.Errorf("container: %+v", p)
	}
	// Only a container world injects it; every other kind is available there too.
	if err := faults.Available(c, faults.Capabilities{}); err == nil || err.Error() != "needs a container world (faultlab run --containers)" {
		t.Errorf("container fault without containers: %v", err)
	}
	if err := faults.Available(c, faults.Capabilities{Containers: true}); err != nil {
		t.Errorf("container fault in a container world: %v", err)
	}
	if _, err := faults.Lower(faults.Fault{Kind: "crash"}); err == nil {
		t.Error("unknown kind lowered")
	}
}

// drop_every loses the Nth message each way on a connection.
func TestDropEvery(t *testing.T) {
	f := faults.Fault{Kind: faults.Link, Target: "master", Mode: faults.ModeDropEvery, Params: faults.DropEveryParams{Every: 3}}
	e, _ := faults.EffectOf(f)
	conn := e.NewState()
	var got []faults.Verdict
	for range 4 {
		got = append(got, e.On(nil, 0, conn, 10, 10).Verdict)
	}
	// Each direction counts its own messages: the 3rd request is lost (its
	// reply never sent), so the 3rd reply is exchange 4's.
	if want := []faults.Verdict{faults.Pass, faults.Pass, faults.Blackhole, faults.Blackhole}; !slices.Equal(got, want) {
		t.Errorf("every 3: %v, want %v", got, want)
	}
	f.Stream = "downstream"
	e, _ = faults.EffectOf(f)
	conn = e.NewState()
	got = nil
	for range 6 {
		got = append(got, e.On(nil, 0, conn, 10, 10).Verdict)
	}
	if want := []faults.Verdict{faults.Pass, faults.Pass, faults.Blackhole, faults.Pass, faults.Pass, faults.Blackhole}; !slices.Equal(got, want) {
		t.Errorf("every 3 downstream: %v, want %v", got, want)
	}
	if got := faults.Simulate(f, nil, 10, 10).Verdict; got != faults.Pass {
		t.Errorf("fresh connection: %s", got)
	}
	if err := faults.Available(f, faults.Capabilities{Toxiproxy: true}); err == nil || !strings.Contains(err.Error(), "toxiproxy has no toxic") {
		t.Errorf("on toxiproxy: %v", err)
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
