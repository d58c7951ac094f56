package faults

import "fmt"

// Link: a toxic (a registered LinkMode) on the links from the nodes to
// Target (master, metadata, client or another node's name).
const Link Kind = "link"

type linkKind struct{ kindBase }

func init() { RegisterKind(linkKind{}) }

func (linkKind) Kind() Kind { return Link }
func (linkKind) Doc() string {
	return "a toxic on the links from the nodes to target (master, metadata, client or a node name)"
}

func (linkKind) Fields() []Field {
	return []Field{
		{"target", "master | metadata | client | a node name"},
		{"mode", "a link mode (below)"},
		{"stream", "both (default) | upstream (node→target) | downstream"},
	}
}

// Params: the mode's.
func (linkKind) Params(f Fault) any {
	if m, ok := modes[f.Mode]; ok {
		return m.Params()
	}
	return nil
}

func (linkKind) Validate(f Fault) error {
	if f.Target == "" {
		return fmt.Errorf("link: target is required (master, metadata, client or a node name)")
	}
	if err := oneOf(f, "mode", f.Mode, LinkModes()); err != nil {
		return err
	}
	if f.Stream != "" {
		if err := oneOf(f, "stream", f.Stream, Streams); err != nil {
			return err
		}
	}
	return modes[f.Mode].Validate(f)
}

func (linkKind) LinkTarget(f Fault) string { return f.Target }

func (linkKind) Modes() []string { return LinkModes() }

func (linkKind) Lower(f Fault) Primitive { return LinkPrimitive{Fault: f, Target: f.Target} }
