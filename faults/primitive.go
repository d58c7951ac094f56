package faults

import "fmt"

// A fault kind lowers to one primitive: the few forms of trouble engines
// implement. An engine's injector switches on the primitive, never on the
// kind or the mode, so a new kind that lowers to an existing primitive
// reaches every engine without touching one; a new primitive is a new case
// in each engine's injector, and an engine without that case reports the
// fault as a skip (Unsupported).

// Primitive is what a fault lowers to (Lower).
type Primitive interface {
	// Source is the fault it was lowered from (for messages and traces).
	Source() Fault
}

// LinkPrimitive: trouble on the links from the nodes to Target, as the
// fault's link mode says (Effect for a simulated link; the fault's Toxic
// for toxiproxy).
type LinkPrimitive struct {
	Fault  Fault
	Target string
}

// ProcessPrimitive: an action on a server process (Target master,
// metadata, client or master-leader); Undo heals it ("" = nothing).
type ProcessPrimitive struct {
	Fault          Fault
	Target, Action string
	Undo           string
}

// ContainerPrimitive: an action on the containers of Targets; Undo heals
// it ("" = nothing); Bytes is the memory action's limit.
type ContainerPrimitive struct {
	Fault   Fault
	Targets []string
	Action  string
	Undo    string
	Bytes   int64
}

func (p LinkPrimitive) Source() Fault      { return p.Fault }
func (p ProcessPrimitive) Source() Fault   { return p.Fault }
func (p ContainerPrimitive) Source() Fault { return p.Fault }

// Effect is the link fault ready for a simulated link.
func (p LinkPrimitive) Effect() (LinkEffect, error) { return EffectOf(p.Fault) }

// Lower is f's primitive, from its kind (f is valid).
func Lower(f Fault) (Primitive, error) {
	k, ok := kinds[f.Kind]
	if !ok {
		return nil, fmt.Errorf("unknown fault kind %q", f.Kind)
	}
	return k.Lower(f), nil
}
