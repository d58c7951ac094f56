package faults

import (
	"errors"
	"fmt"
)

// ModeUnreachable: every packet towards the target is dropped on the path
// (a firewall's DROP rule, a route to nowhere, a switch port down): a new
// connection's SYNs go unanswered, so connect() fails with ETIMEDOUT once
// the kernel's SYN retries are spent, and an open connection goes silent.
// Unlike blackhole, nothing accepts the connection.
const ModeUnreachable = "unreachable"

type unreachable struct{ modeBase }

func init() { RegisterMode(unreachable{}) }

func (unreachable) Name() string { return ModeUnreachable }
func (unreachable) Doc() string {
	return "every packet towards the target is dropped: a connect gets no SYN-ACK and times out (ETIMEDOUT after the kernel's SYN retries), an open connection goes silent; links between nodes only (sim only)"
}

// Validate: only the transfer engine's connect to a peer's data port is
// modelled (sim's data path); a server's callers (coro_rpc, curl) have
// connect timeouts of their own that were not measured under a dropped
// SYN - blackhole is the fault for them. Any stream: either direction
// dropped fails the connect (its SYNs, or the SYN-ACKs).
func (m unreachable) Validate(f Fault) error { return m.CheckTarget(f.Target) }

// CheckTarget: the links to nodes only (explore's draw asks it).
func (unreachable) CheckTarget(target string) error {
	switch target {
	case "master", "metadata", "client":
		return fmt.Errorf("link unreachable: target %s: only links between nodes (a transfer's connect to the peer's data port) are modelled; use blackhole for a server", target)
	}
	return nil
}

// Simulate: on an open connection nothing arrives, as in a blackhole;
// the connect itself is the engine's (LinkEffect.DropsConnect).
func (unreachable) Simulate(Fault, *Exchange) Effect { return Effect{Verdict: Blackhole} }

// Toxic: none. toxiproxy accepts every connection at its own listener, so
// a connect through it never waits for a SYN-ACK.
func (unreachable) Toxic(Fault) (string, map[string]any, bool) { return "", nil, false }

func (unreachable) Available(c Capabilities) error {
	if c.Toxiproxy {
		return errors.New("toxiproxy accepts every connection at its listener: it cannot leave a connect's SYN unanswered")
	}
	return nil
}

// Holds: a connect in flight when the fault clears is still waiting for
// its next SYN retransmission.
func (unreachable) Holds(Fault) bool { return true }

// DropsConnect: a connect over the link gets no answer.
func (unreachable) DropsConnect() bool { return true }
