package faults

import "fmt"

// TEMetadataRace: an interleaving of a transfer engine's threads on its
// metadata that Mooncake's locking does not order, as the field saw it
// when buffers are registered or removed while peers transfer: the P2P
// handshake daemon serves a peer's metadata exchange
// (TransferMetadata::receivePeerMetadata encodes the local segment
// descriptor) at the moment a registration or removal replaces that
// descriptor (Mooncake PR 1373). The threads are not modelled: the fault
// is the interleaving, the model does what the release does once it
// happened.
const TEMetadataRace Kind = "te-metadata-race"

// ModeLocalDesc: the node's next register_memory (a buffer added to the
// local segment descriptor) meets a peer's metadata exchange served by
// its handshake daemon, whose copy of the descriptor is freed under it
// (SIGSEGV).
const ModeLocalDesc = "local_desc"

// ModeLocalDescThrow: the same interleaving, where encodeSegmentDesc
// reads the descriptor being replaced and jsoncpp throws Json::LogicError
// in the daemon's thread, which nothing catches (std::terminate, abort).
const ModeLocalDescThrow = "local_desc_throw"

// TEMetadataRaceModes are the te-metadata-race kind's modes.
var TEMetadataRaceModes = []string{ModeLocalDesc, ModeLocalDescThrow}

// TEMetadataRacePrimitive: the next buffer registration of a P2P
// handshake transfer engine on Node races its daemon's metadata exchange
// (once per fault); Throw: the daemon's thread throws Json::LogicError
// rather than faulting.
type TEMetadataRacePrimitive struct {
	Fault Fault
	Node  string
	Throw bool
}

func (p TEMetadataRacePrimitive) Source() Fault { return p.Fault }

type teMetadataRaceKind struct{ kindBase }

func init() { RegisterKind(teMetadataRaceKind{}) }

func (teMetadataRaceKind) Kind() Kind { return TEMetadataRace }
func (teMetadataRaceKind) Doc() string {
	return "an unordered interleaving of a transfer engine's threads on its metadata: a buffer registration replaces the local segment descriptor while the P2P handshake daemon encodes it for a peer's metadata exchange"
}
func (teMetadataRaceKind) Fields() []Field {
	return []Field{
		{"target", "the node whose transfer engine races (a topology node)"},
		{"mode", "local_desc: the node's next register_memory meets a peer's metadata exchange (receivePeerMetadata copies the local segment descriptor being replaced: SIGSEGV); local_desc_throw: the same, encodeSegmentDesc throws Json::LogicError in the daemon's thread (terminate, SIGABRT)"},
	}
}

func (teMetadataRaceKind) Params(Fault) any { return nil }

func (teMetadataRaceKind) Validate(f Fault) error {
	if f.Target == "" {
		return fmt.Errorf("%s: give target, the node whose transfer engine races (e.g. target: tp1)", f.Kind)
	}
	return oneOf(f, "mode", f.Mode, TEMetadataRaceModes)
}

func (teMetadataRaceKind) LinkTarget(Fault) string { return "" }

func (teMetadataRaceKind) Modes() []string { return TEMetadataRaceModes }

func (teMetadataRaceKind) Lower(f Fault) Primitive {
	return TEMetadataRacePrimitive{Fault: f, Node: f.Target, Throw: f.Mode == ModeLocalDescThrow}
}

// Weight keeps explore from drawing it: the race needs te steps in P2P
// handshake mode with a registration after a peer's transfer, which a
// random draw rarely builds; io/te-register-metadata-race is its world
// (local_desc_throw: local_desc's SIGSEGV prints no line, so a world of
// it would fit every segfault log).
func (teMetadataRaceKind) Weight(*Draw) int { return 0 }
