package netsim_test

import (
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/sim/kernel"
	"github.com/mooncake-faultlab/faultlab/sim/netsim"
)

func TestExchange(t *testing.T) {
	n := netsim.New(kernel.Stream(1, "net"))
	if out := n.Exchange("tp0", "master", 10, 10); out.Verdict != netsim.Pass || out.Delay != 0 {
		t.Fatalf("healthy: %+v", out)
	}
	lat, _ := n.Add(netsim.Any, "master", faults.Fault{Kind: faults.Link, Target: "master", Mode: faults.ModeLatency, Latency: 10 * time.Millisecond})
	if out := n.Exchange("tp0", "master", 10, 10); out.Delay != 20*time.Millisecond {
		t.Fatalf("latency both ways: %+v", out)
	}
	bh, _ := n.Add("tp0", "master", faults.Fault{Kind: faults.MasterDown, Mode: faults.ModeBlackhole})
	if out := n.Exchange("tp0", "master", 10, 10); out.Verdict != netsim.Blackhole {
		t.Fatalf("blackhole: %+v", out)
	}
	if out := n.Exchange("tp1", "master", 10, 10); out.Verdict != netsim.Pass {
		t.Fatalf("other node unaffected: %+v", out)
	}
	ref, _ := n.Add(netsim.Any, "master", faults.Fault{Kind: faults.MasterDown, Mode: faults.ModeRefuse})
	if out := n.Exchange("tp0", "master", 10, 10); out.Verdict != netsim.Refuse {
		t.Fatalf("refuse wins: %+v", out)
	}
	n.Remove(ref)
	n.Remove(bh)
	n.Remove(lat)
	n.Add(netsim.Any, "tp1", faults.Fault{Kind: faults.Link, Target: "tp1", Mode: faults.ModeLimitData, Bytes: 100})
	if out := n.Exchange("tp0", "tp1", 60, 0); out.Verdict != netsim.Pass {
		t.Fatalf("under limit: %+v", out)
	}
	if out := n.Exchange("tp0", "tp1", 60, 0); out.Verdict != netsim.ResetPeer {
		t.Fatalf("over limit: %+v", out)
	}
	n.Clear()
	n.Add(netsim.Any, "tp1", faults.Fault{Kind: faults.Link, Target: "tp1", Mode: faults.ModeBandwidth, RateKBps: 1000, Stream: "upstream"})
	if out := n.Exchange("tp0", "tp1", 1_000_000, 1_000_000); out.Delay != time.Second {
		t.Fatalf("bandwidth upstream 1 MB at 1000 KB/s: %+v", out)
	}
}

func TestJitterIsSeeded(t *testing.T) {
	draw := func(seed uint64) []time.Duration {
		n := netsim.New(kernel.Stream(seed, "net"))
		n.Add(netsim.Any, "master", faults.Fault{Kind: faults.Link, Mode: faults.ModeLatency, Latency: 50 * time.Millisecond, Jitter: 20 * time.Millisecond, Stream: "upstream"})
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
