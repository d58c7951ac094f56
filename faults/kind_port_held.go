package faults

import "fmt"

// PortHeld: another process on the nodes' host listens on a TCP port, so
// a Mooncake bind of that port fails with "Address already in use" (the
// transfer engine's unchecked TCP port, Mooncake#601).
const PortHeld Kind = "port-held"

// PortHeldParams are a port-held fault's parameters.
type PortHeldParams struct {
	Port int64 `yaml:"port" doc:"the TCP port held on every address of the host (1024-65535)" gen:"17782" trace:"port=%d"`
}

// PortPrimitive: Port is held on the host (all addresses, IPv4 and IPv6)
// by a process that is not Mooncake's; healing frees it.
type PortPrimitive struct {
	Fault Fault
	Port  int
}

func (p PortPrimitive) Source() Fault { return p.Fault }

type portHeldKind struct{ kindBase }

func init() { RegisterKind(portHeldKind{}) }

func (portHeldKind) Kind() Kind { return PortHeld }
func (portHeldKind) Doc() string {
	return "another process on the host listens on a TCP port (every address), so Mooncake's bind of it fails with Address already in use"
}
func (portHeldKind) Fields() []Field { return nil }

func (portHeldKind) Params(Fault) any { return PortHeldParams{} }

func (portHeldKind) Validate(f Fault) error {
	if f.Target != "" || f.Mode != "" || f.Action != "" {
		return fmt.Errorf("%s: takes no target, mode or action, only port (e.g. port: 17782)", f.Kind)
	}
	if p := paramsOf[PortHeldParams](f).Port; p < 1024 || p > 65535 {
		return fmt.Errorf("%s: port %d: give a TCP port, 1024-65535 (e.g. port: 17782)", f.Kind, p)
	}
	return nil
}

func (portHeldKind) LinkTarget(Fault) string { return "" }

func (portHeldKind) Lower(f Fault) Primitive {
	return PortPrimitive{Fault: f, Port: int(paramsOf[PortHeldParams](f).Port)}
}

// Weight keeps explore from drawing it: a held port matters only where a
// world names the port Mooncake binds (an explicit local_hostname port at
// a release that binds the next one), which a random draw does not.
func (portHeldKind) Weight(*Draw) int { return 0 }
