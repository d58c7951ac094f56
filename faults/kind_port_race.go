package faults

import "fmt"

// PortRace: another transfer engine on the nodes' host starts at the same
// moment and its free-port probe lands on the port this engine's probe
// just bound. Up to 0.3.6 findAvailableTcpPort binds with SO_REUSEADDR
// (transfer_metadata_plugin.cpp v0.3.6:1137), so both probes hold the
// port, the other engine's handshake daemon listens first and this one's
// listen() fails with EADDRINUSE; from 0.3.6.post1 (PR 830) the second
// bind fails and the other engine draws another port.
const PortRace Kind = "port-race"

// PortRacePrimitive: the next findAvailableTcpPort on the host shares its
// port with another engine that listens first (while the fault holds).
type PortRacePrimitive struct{ Fault Fault }

func (p PortRacePrimitive) Source() Fault { return p.Fault }

type portRaceKind struct{ kindBase }

func init() { RegisterKind(portRaceKind{}) }

func (portRaceKind) Kind() Kind { return PortRace }
func (portRaceKind) Doc() string {
	return "another transfer engine on the host probes the same free port at the same moment and listens on it first (findAvailableTcpPort with SO_REUSEADDR up to 0.3.6: the handshake daemon's listen() fails with Address already in use)"
}
func (portRaceKind) Fields() []Field  { return nil }
func (portRaceKind) Params(Fault) any { return nil }

func (portRaceKind) Validate(f Fault) error {
	if f.Target != "" || f.Mode != "" || f.Action != "" {
		return fmt.Errorf("%s: takes no target, mode or action (e.g. {at: 0s, kind: port-race})", f.Kind)
	}
	return nil
}

func (portRaceKind) LinkTarget(Fault) string { return "" }

func (portRaceKind) Lower(f Fault) Primitive { return PortRacePrimitive{Fault: f} }

// Weight keeps explore from drawing it: the race needs a release whose
// probe sets SO_REUSEADDR, P2P handshake and a probed port, which a random
// draw rarely builds; setup/handshake-port-reuseaddr is its world.
func (portRaceKind) Weight(*Draw) int { return 0 }
