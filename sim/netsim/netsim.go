// Package netsim models the links between parties: per (from, to) pair a
// stack of toxics, each a faults.LinkEffect (a link fault with its mode
// resolved when armed) that says what it does to one exchange. It only
// answers "what happens to this exchange"; callers wait on their clock.
package netsim

import (
	"math/rand/v2"
	"time"

	"github.com/mooncake-faultlab/faultlab/faults"
)

// Any matches every source or destination.
const Any = "*"

// Verdict is what an exchange on a link meets (see faults.Verdict).
type Verdict = faults.Verdict

const (
	Pass      = faults.Pass
	Refuse    = faults.Refuse
	Blackhole = faults.Blackhole
	ResetPeer = faults.ResetPeer
	Closed    = faults.Closed
)

// Outcome of one exchange (request + reply).
type Outcome struct {
	Verdict Verdict
	// Delay is the total latency added (both directions, bandwidth included).
	Delay time.Duration
}

type toxic struct {
	id   int
	from string
	to   string
	eff  faults.LinkEffect
	// conns: this toxic's state per pooled connection (its mode's
	// NewState: slicer's busy pipes, limit_data's counts). Looked up by
	// key, never iterated.
	conns map[string]any
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

// Add arms a link effect on from→to (either may be Any) and returns its id.
func (n *Net) Add(from, to string, eff faults.LinkEffect) int {
	n.nextID++
	n.toxics = append(n.toxics, &toxic{id: n.nextID, from: from, to: to, eff: eff})
	return n.nextID
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
// →to. Each toxic's effect is its mode's (faults.LinkMode.Simulate); the
// worst verdict wins (refuse, blackhole, reset, pass) and delays add up.
func (n *Net) Exchange(from, to string, reqBytes, respBytes int64) Outcome {
	return n.ExchangeOn(Conn{}, from, to, reqBytes, respBytes)
}

// Conn names the connection an exchange travels on and when its request
// is written: toxiproxy runs each toxic once per connection and direction,
// so a toxic that holds its pipe (slicer) delays the connection's next
// message, and limit_data counts per connection. The zero Conn is a fresh
// connection, used once.
type Conn struct {
	Key string
	Now time.Duration
}

// ExchangeOn is Exchange on connection c. A connection that an exchange
// loses (reset or closed) is gone: the next exchange with its key is on a
// new connection, with fresh toxic state.
func (n *Net) ExchangeOn(c Conn, from, to string, reqBytes, respBytes int64) Outcome {
	out := Outcome{Verdict: Pass}
	var used []*toxic
	for _, t := range n.toxics {
		if (t.to != Any && t.to != to) || (t.from != Any && t.from != from) {
			continue
		}
		var st any
		if c.Key != "" {
			if t.conns == nil {
				t.conns = map[string]any{}
			}
			var ok bool
			if st, ok = t.conns[c.Key]; !ok {
				st = t.eff.NewState()
				t.conns[c.Key] = st
			}
			used = append(used, t)
		}
		e := t.eff.On(n.rng, c.Now, st, reqBytes, respBytes)
		out.Delay += e.Delay
		if e.Verdict.Rank() > out.Verdict.Rank() {
			out.Verdict = e.Verdict
		}
	}
	if out.Verdict == ResetPeer || out.Verdict == Closed {
		for _, t := range used {
			delete(t.conns, c.Key)
		}
	}
	return out
}

// DropsConnect reports, without drawing or counting anything, whether a
// connect from→to gets no answer now (an unreachable toxic is armed).
func (n *Net) DropsConnect(from, to string) bool {
	for _, t := range n.toxics {
		if (t.to == Any || t.to == to) && (t.from == Any || t.from == from) && t.eff.DropsConnect() {
			return true
		}
	}
	return false
}

// Refuses reports, without drawing or counting anything, whether a connect
// from→to is refused now (a toxic that refuses is armed on the link).
func (n *Net) Refuses(from, to string) bool {
	for _, t := range n.toxics {
		if (t.to != Any && t.to != to) || (t.from != Any && t.from != from) {
			continue
		}
		if t.eff.Refuses() {
			return true
		}
	}
	return false
}
