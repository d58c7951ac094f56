package faults

import "fmt"

// RDMAEndpoint: an interleaving of the transfer engine's threads on one
// RdmaEndPoint that Mooncake's locking does not order, as the field saw
// it under heavy connection fan-out or endpoint churn. The threads are
// not modelled: the fault is the interleaving, the model does what the
// source at the release does once it happened.
const RDMAEndpoint Kind = "rdma-endpoint"

// ModeStaleHandshake: each active handshake of the node's endpoints is
// overtaken: while its RPC is in flight (setupConnectionsByActive sends
// it without the endpoint lock) the endpoint is set up again, the peer
// re-establishes its side with the newer QPs, and the stale reply is the
// one that configures the local QPs (Mooncake#3584): the endpoint is
// CONNECTED but the peer's QPs answer another generation, so every work
// request ends in IBV_WC_RETRY_EXC_ERR.
const ModeStaleHandshake = "stale_handshake"

// ModeDestroyRace: the node's next transfer on an existing endpoint runs
// while another worker deletes that endpoint (a failed completion's
// deleteEndpoint, or an eviction) and destroys its queue pairs
// (Mooncake PR #1903).
const ModeDestroyRace = "destroy_race"

// RDMAEndpointModes are the rdma-endpoint kind's modes.
var RDMAEndpointModes = []string{ModeStaleHandshake, ModeDestroyRace}

type rdmaEndpointKind struct{ kindBase }

func init() { RegisterKind(rdmaEndpointKind{}) }

func (rdmaEndpointKind) Kind() Kind { return RDMAEndpoint }
func (rdmaEndpointKind) Doc() string {
	return "an unordered interleaving of the transfer engine's threads on a node's RDMA endpoint: a stale handshake reply configures a re-established endpoint, or its queue pairs are destroyed while another worker posts on it"
}
func (rdmaEndpointKind) Fields() []Field {
	return []Field{
		{"target", "the node whose endpoints race (a topology node with nic.rdma)"},
		{"mode", "stale_handshake: every handshake's reply is a stale generation's (work requests then end in transport retry counter exceeded); destroy_race: the next transfer on an existing endpoint meets its destruction by another worker"},
	}
}

func (rdmaEndpointKind) Params(Fault) any { return nil }

func (rdmaEndpointKind) Validate(f Fault) error {
	if f.Target == "" {
		return fmt.Errorf("%s: give target, the node whose endpoints race (e.g. target: tp0)", f.Kind)
	}
	return oneOf(f, "mode", f.Mode, RDMAEndpointModes)
}

func (rdmaEndpointKind) LinkTarget(Fault) string { return "" }

func (rdmaEndpointKind) Modes() []string { return RDMAEndpointModes }

func (rdmaEndpointKind) Lower(f Fault) Primitive {
	return RDMAPrimitive{Fault: f, Node: f.Target, StaleHandshake: f.Mode == ModeStaleHandshake, DestroyRace: f.Mode == ModeDestroyRace}
}

// Weight keeps explore from drawing it: no engine of this host can check
// the model against a real RNIC.
func (rdmaEndpointKind) Weight(*Draw) int { return 0 }
