package netsim_test

import (
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/models/rng"
	"github.com/mooncake-faultlab/faultlab/sim/netsim"
)

func TestExchange(t *testing.T) {
	n := netsim.New(rng.Stream(1, "net"))
	if out := n.Exchange("tp0", "master", 10, 10); out.Verdict != netsim.Pass || out.Delay != 0 {
		t.Fatalf("healthy: %+v", out)
	}
	lat := n.Add(netsim.Any, "master", eff(faults.Fault{Kind: faults.Link, Target: "master", Mode: faults.ModeLatency, Params: faults.LatencyParams{Latency: 10 * time.Millisecond}}))
	if out := n.Exchange("tp0", "master", 10, 10); out.Delay != 20*time.Millisecond {
		t.Fatalf("latency both ways: %+v", out)
	}
	bh := n.Add("tp0", "master", eff(faults.Fault{Kind: faults.MasterDown, Mode: faults.ModeBlackhole}))
	if out := n.Exchange("tp0", "master", 10, 10); out.Verdict != netsim.Blackhole {
		t.Fatalf("blackhole: %+v", out)
	}
	if out := n.Exchange("tp1", "master", 10, 10); out.Verdict != netsim.Pass {
		t.Fatalf("other node unaffected: %+v", out)
	}
	ref := n.Add(netsim.Any, "master", eff(faults.Fault{Kind: faults.MasterDown, Mode: faults.ModeRefuse}))
	if out := n.Exchange("tp0", "master", 10, 10); out.Verdict != netsim.Refuse {
		t.Fatalf("refuse wins: %+v", out)
	}
	n.Remove(ref)
	n.Remove(bh)
	n.Remove(lat)
	n.Add(netsim.Any, "tp1", eff(faults.Fault{Kind: faults.Link, Target: "tp1", Mode: faults.ModeLimitData, Params: faults.LimitDataParams{Bytes: 100}}))
	// Counted per connection: fresh connections never add up; a pooled
	// one does, is closed over the limit, and its successor starts at zero.
	conn := netsim.Conn{Key: "fg"}
	for i, want := range []netsim.Verdict{netsim.Pass, netsim.Closed, netsim.Pass} {
		if out := n.Exchange("tp0", "tp1", 60, 0); out.Verdict != netsim.Pass {
			t.Fatalf("fresh connection %d: %+v", i, out)
		}
		if out := n.ExchangeOn(conn, "tp0", "tp1", 60, 0); out.Verdict != want {
			t.Fatalf("pooled connection, exchange %d: %+v, want %s", i, out, want)
		}
	}
	n.Clear()
	n.Add(netsim.Any, "tp1", eff(faults.Fault{Kind: faults.Link, Target: "tp1", Mode: faults.ModeBandwidth, Stream: "upstream", Params: faults.BandwidthParams{RateKBps: 1000}}))
	if out := n.Exchange("tp0", "tp1", 1_000_000, 1_000_000); out.Delay != time.Second {
		t.Fatalf("bandwidth upstream 1 MB at 1000 KB/s: %+v", out)
	}
}

func TestJitterIsSeeded(t *testing.T) {
	draw := func(seed uint64) []time.Duration {
		n := netsim.New(rng.Stream(seed, "net"))
		n.Add(netsim.Any, "master", eff(faults.Fault{Kind: faults.Link, Mode: faults.ModeLatency, Stream: "upstream", Params: faults.LatencyParams{Latency: 50 * time.Millisecond, Jitter: 20 * time.Millisecond}}))
		var out []time.Duration
		for range 5 {
			d := n.Exchange("tp0", "master", 1, 1).Delay
			if d < 30*time.Millisecond || d > 70*time.Millisecond {
				panic(d)
			}
			out = append(out, d)
		}
		return out
	}
	a, b, c := draw(1), draw(1), draw(2)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed differs: %v vs %v", a, b)
		}
	}
	same := true
	for i := range a {
		same = same && a[i] == c[i]
	}
	if same {
		t.Fatalf("different seeds gave the same jitter %v", a)
	}
}

// eff resolves a link fault's mode, as sim's injector does when it arms it.
func eff(f faults.Fault) faults.LinkEffect {
	e, err := faults.EffectOf(f)
	if err != nil {
		panic(err)
	}
	return e
}
