package faults

import (
	"errors"
	"fmt"
)

// ModeDropEvery: every Nth message in each direction of a connection is
// lost and the connection stays open, so the caller waits its own timeout
// for that one reply.
const ModeDropEvery = "drop_every"

// DropEveryParams are drop_every's parameters.
type DropEveryParams struct {
	Every int64 `yaml:"every" doc:"the Nth message each way is dropped (≥ 1; 1 = every message)" gen:"1,2,3" trace:"every=%d"`
}

// dropEveryState counts the messages each direction of one connection has
// carried (0 upstream, 1 downstream).
type dropEveryState struct{ n [2]int64 }

type dropEvery struct{ modeBase }

func init() { RegisterMode(dropEvery{}) }

func (dropEvery) Name() string { return ModeDropEvery }
func (dropEvery) Doc() string {
	return "every Nth message each way on a connection is lost; the caller waits its timeout (sim only)"
}
func (dropEvery) Params() any   { return DropEveryParams{} }
func (dropEvery) NewState() any { return &dropEveryState{} }

func (dropEvery) Validate(f Fault) error {
	if paramsOf[DropEveryParams](f).Every < 1 {
		return fmt.Errorf("link drop_every: every must be ≥ 1")
	}
	return nil
}

func (dropEvery) Simulate(f Fault, x *Exchange) Effect {
	every, st := paramsOf[DropEveryParams](f).Every, x.State.(*dropEveryState)
	if every < 1 {
		return Effect{}
	}
	// A lost request gets no reply; a lost reply never arrives: either way
	// the exchange meets silence, as a blackhole's.
	if x.Up {
		if st.n[0]++; st.n[0]%every == 0 {
			return Effect{Verdict: Blackhole}
		}
	}
	if x.Down {
		if st.n[1]++; st.n[1]%every == 0 {
			return Effect{Verdict: Blackhole}
		}
	}
	return Effect{}
}

// Toxic: none. toxiproxy v2.12's toxics (latency, bandwidth, slow_close,
// timeout, reset_peer, slicer, limit_data, noop) see bytes, not messages,
// and none drops a chunk and lets the next through.
func (dropEvery) Toxic(Fault) (string, map[string]any, bool) { return "", nil, false }

func (dropEvery) Available(c Capabilities) error {
	if c.Toxiproxy {
		return errors.New("toxiproxy has no toxic that drops every Nth message and keeps the connection (its toxics see bytes, not messages)")
	}
	return nil
}

// Holds: a dropped message's exchange ends only at its timeout.
func (dropEvery) Holds(Fault) bool { return true }
