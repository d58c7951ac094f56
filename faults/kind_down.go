package faults

import "fmt"

// The *-down kinds: one named link (node→server) is down. refuse
// (connection refused: the server is not running) or blackhole (packets
// dropped: wrong address, firewall).
const (
	MasterDown   Kind = "master-down"
	MetadataDown Kind = "metadata-down"
	ClientDown   Kind = "client-down"
)

// DownModes are the modes of the *-down kinds.
var DownModes = []string{ModeRefuse, ModeBlackhole}

type downKind struct {
	kindBase
	kind Kind
	link string
	doc  string
	// process: the link cannot be proxied, so the fault acts on the
	// process behind it (ClientDownAction).
	process bool
}

func init() {
	RegisterKind(downKind{kind: MasterDown, link: "master", doc: "the node→master link is down", process: false})
	RegisterKind(downKind{kind: MetadataDown, link: "metadata", doc: "the node→metadata (HTTP) link is down", process: false})
	RegisterKind(downKind{kind: ClientDown, link: "client", doc: "mooncake_client is down: refuse kills it (SIGKILL; started again when cleared, its segment stays mounted until client_ttl), blackhole pauses it (SIGSTOP)", process: true})
}

func (k downKind) Kind() Kind  { return k.kind }
func (k downKind) Doc() string { return k.doc + " (mode refuse or blackhole)" }
func (k downKind) Fields() []Field {
	return []Field{{"mode", "refuse | blackhole"}}
}

func (downKind) Params(Fault) any { return nil }

func (k downKind) Validate(f Fault) error {
	if f.Target != "" {
		return fmt.Errorf("%s: has no target (the link is implied); use kind link for other links", f.Kind)
	}
	return oneOf(f, "mode", f.Mode, DownModes)
}

func (k downKind) LinkTarget(Fault) string { return k.link }

func (downKind) Modes() []string { return DownModes }

// ClientDownAction is the process action a client-down fault is on every
// engine: the dummy→mooncake_client link cannot be proxied (the dummy derives
// its IPC socket name from the port), so refuse stops mooncake_client
// (SIGKILL: its segment stays mounted on the master until client_ttl) and
// blackhole pauses it (SIGSTOP).
func ClientDownAction(mode string) string {
	if mode == ModeBlackhole {
		return "pause"
	}
	return "stop"
}

// Lower: the link's mode on the link, or for client-down the process
// action the mode stands for.
func (k downKind) Lower(f Fault) Primitive {
	if k.process {
		a := ClientDownAction(f.Mode)
		return ProcessPrimitive{Fault: f, Target: k.link, Action: a, Undo: Undo(a)}
	}
	return LinkPrimitive{Fault: f, Target: k.link}
}

// DownKind is the kind that takes the node→party link down (master-down
// for "master"); "" when none does.
func DownKind(party string) Kind {
	for _, k := range Kinds() {
		if d, ok := k.(downKind); ok && d.link == party && !d.process {
			return d.kind
		}
	}
	return ""
}
