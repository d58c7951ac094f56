// Package netsim models the links between parties: per (from, to) pair a
// stack of toxics (refuse, blackhole, reset_peer, latency+jitter,
// bandwidth, slicer, limit_data), the vocabulary of faults.Fault. It only
// answers "what happens to this exchange"; callers wait on their clock.
package netsim

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/mooncake-faultlab/faultlab/faults"
)

// Any matches every source node.
const Any = "*"

// Verdict is what an exchange on a link meets.
type Verdict int

const (
	// Pass: delivered after Delay.
	Pass Verdict = iota
	// Refuse: connect refused at once (ECONNREFUSED).
	Refuse
	// Blackhole: nothing ever answers; the caller waits its timeout.
	Blackhole
	// ResetPeer: the connection is reset (ECONNRESET) after Delay.
	ResetPeer
)

func (v Verdict) String() string {
	return [...]string{"pass", "refuse", "blackhole", "reset_peer"}[v]
}

// Outcome of one exchange (request + reply).
type Outcome struct {
	Verdict Verdict
	// Delay is the total latency added (both directions, bandwidth included).
	Delay time.Duration
}

type toxic struct {
	id    int
	from  string
	to    string
	fault faults.Fault
	sent  int64 // bytes through a limit_data toxic
}

// Net is the link table. Not safe for concurrent use (sim is single
// threaded; the fake engine uses toxiproxy instead).
type Net struct {
	rng    *rand.Rand
	toxics []*toxic // in arming order: deterministic evaluation
	nextID int
}

// New returns a healthy network; rng draws jitter.
func New(rng *rand.Rand) *Net { return &Net{rng: rng} }

// Add arms a fault on from→to (from may be Any) and returns its id.
func (n *Net) Add(from, to string, f faults.Fault) (int, error) {
	mode := f.Mode
	switch mode {
	case faults.ModeRefuse, faults.ModeBlackhole, faults.ModeResetPeer, faults.ModeLatency,
		faults.ModeBandwidth, faults.ModeSlicer, faults.ModeLimitData:
	default:
		return 0, fmt.Errorf("netsim: link %s→%s: unknown mode %q", from, to, mode)
	}
	n.nextID++
	n.toxics = append(n.toxics, &toxic{id: n.nextID, from: from, to: to, fault: f})
	return n.nextID, nil
}

// Remove heals one fault.
func (n *Net) Remove(id int) {
	for i, t := range n.toxics {
		if t.id == id {
			n.toxics = append(n.toxics[:i], n.toxics[i+1:]...)
			return
		}
	}
}

// Clear heals every fault.
func (n *Net) Clear() { n.toxics = nil }

// Active counts armed faults.
func (n *Net) Active() int { return len(n.toxics) }

// Exchange evaluates one request of reqBytes and a reply of respBytes from
// →to. Refuse beats blackhole beats reset; latencies add up.
func (n *Net) Exchange(from, to string, reqBytes, respBytes int64) Outcome {
	out := Outcome{Verdict: Pass}
	worst := Pass
	rank := map[Verdict]int{Pass: 0, ResetPeer: 1, Blackhole: 2, Refuse: 3}
	for _, t := range n.toxics {
		if t.to != to || (t.from != Any && t.from != from) {
			continue
		}
		f := t.fault
		up, down := f.Stream != "downstream", f.Stream != "upstream"
		var v Verdict = Pass
		switch f.Mode {
		case faults.ModeRefuse:
			v = Refuse
		case faults.ModeBlackhole:
			v = Blackhole
		case faults.ModeResetPeer:
			v = ResetPeer
			out.Delay += f.Delay
		case faults.ModeLatency:
			per := f.Latency
			if f.Jitter > 0 {
				per += time.Duration(n.rng.Int64N(int64(2*f.Jitter)+1)) - f.Jitter
				if per < 0 {
					per = 0
				}
			}
			if up {
				out.Delay += per
			}
			if down {
				out.Delay += per
			}
		case faults.ModeBandwidth:
			var b int64
			if up {
				b += reqBytes
			}
			if down {
				b += respBytes
			}
			out.Delay += time.Duration(float64(b) / float64(f.RateKBps*1000) * float64(time.Second))
		case faults.ModeSlicer:
			// Slicing only re-chunks the stream; with Delay between slices it
			// adds latency per slice.
			if f.AverageSize > 0 && f.Delay > 0 {
				slices := (reqBytes + respBytes + f.AverageSize - 1) / f.AverageSize
				out.Delay += time.Duration(slices) * f.Delay
			}
		case faults.ModeLimitData:
			var b int64
			if up {
				b += reqBytes
			}
			if down {
				b += respBytes
			}
			t.sent += b
			if t.sent > f.Bytes {
				v = ResetPeer
			}
		}
		if rank[v] > rank[worst] {
			worst = v
		}
	}
	out.Verdict = worst
	return out
}
