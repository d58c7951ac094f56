package faults

import "fmt"

// RDMAContext: an RNIC whose RdmaContext cannot be built while the
// transfer engine installs its RDMA transport (RdmaContext::construct):
// a broken NIC, or one whose completion-queue resources are used up,
// fails ibv_create_cq with ENOMEM (Mooncake#535). It acts at setup,
// before any work request, so it needs no modelled worker pool.
const RDMAContext Kind = "rdma-context"

// ModeCreateCQ is the rdma-context mode of a device whose ibv_create_cq
// fails with ENOMEM.
const ModeCreateCQ = "create_cq"

// RDMAContextModes are the rdma-context kind's modes.
var RDMAContextModes = []string{ModeCreateCQ}

// RDMAContextParams are an rdma-context fault's parameters.
type RDMAContextParams struct {
	Device string `yaml:"device" doc:"the RNIC whose context fails (a name in the node's nic.rdma, e.g. mlx5_1); unset: every RNIC of the node" gen:",mlx5_0" trace:"device=%q"`
}

type rdmaContextKind struct{ kindBase }

func init() { RegisterKind(rdmaContextKind{}) }

func (rdmaContextKind) Kind() Kind { return RDMAContext }
func (rdmaContextKind) Doc() string {
	return "a node's RNIC cannot build its RDMA context when the transport is installed: ibv_create_cq fails with ENOMEM (a broken NIC)"
}
func (rdmaContextKind) Fields() []Field {
	return []Field{
		{"target", "the node whose RNIC fails (a topology node with nic.rdma)"},
		{"mode", "create_cq: RdmaContext::construct's ibv_create_cq fails with ENOMEM"},
	}
}

func (rdmaContextKind) Params(Fault) any { return RDMAContextParams{} }

func (rdmaContextKind) Validate(f Fault) error {
	if f.Target == "" {
		return fmt.Errorf("%s: give target, the node whose RNIC fails (e.g. target: tp0)", f.Kind)
	}
	return oneOf(f, "mode", f.Mode, RDMAContextModes)
}

func (rdmaContextKind) LinkTarget(Fault) string { return "" }

func (rdmaContextKind) Modes() []string { return RDMAContextModes }

func (rdmaContextKind) Lower(f Fault) Primitive {
	return RDMAPrimitive{Fault: f, Node: f.Target, CreateCQ: true, Device: paramsOf[RDMAContextParams](f).Device}
}

// Weight keeps explore from drawing it: no engine of this host can check
// the model against a real RNIC.
func (rdmaContextKind) Weight(*Draw) int { return 0 }
