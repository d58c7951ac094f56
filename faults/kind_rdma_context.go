package faults

import "fmt"

// RDMAContext: an RNIC whose RdmaContext cannot be built while the
// transfer engine installs its RDMA transport (RdmaContext::construct):
// a broken NIC, or one whose completion-queue resources are used up,
// fails ibv_create_cq with ENOMEM (Mooncake#535). It acts at setup,
// before any work request, so it needs no modelled worker pool. Or an
// RNIC whose driver departs from the verbs behaviour the endpoint
// assumes (reset_rejected), which acts at each connection.
const RDMAContext Kind = "rdma-context"

// ModeCreateCQ is the rdma-context mode of a device whose ibv_create_cq
// fails with ENOMEM.
const ModeCreateCQ = "create_cq"

// ModeResetRejected is the rdma-context mode of a device whose driver
// rejects a transition to RESET of a queue pair already in RESET (the
// Intel E810's irdma): RdmaEndPoint::doSetupConnection's first
// ibv_modify_qp ("Any state -> RESET") on a freshly created QP fails
// with EINVAL, so no endpoint of the device ever connects.
const ModeResetRejected = "reset_rejected"

// RDMAContextModes are the rdma-context kind's modes.
var RDMAContextModes = []string{ModeCreateCQ, ModeResetRejected}

// RDMAContextParams are an rdma-context fault's parameters.
type RDMAContextParams struct {
	Device string `yaml:"device" doc:"the RNIC whose context fails (a name in the node's nic.rdma, e.g. mlx5_1); unset: every RNIC of the node" gen:",mlx5_0" trace:"device=%q"`
}

type rdmaContextKind struct{ kindBase }

func init() { RegisterKind(rdmaContextKind{}) }

func (rdmaContextKind) Kind() Kind { return RDMAContext }
func (rdmaContextKind) Doc() string {
	return "a node's RNIC cannot build its RDMA context when the transport is installed: ibv_create_cq fails with ENOMEM (a broken NIC); or its driver rejects the endpoint's redundant QP reset, so no connection of it is set up"
}
func (rdmaContextKind) Fields() []Field {
	return []Field{
		{"target", "the node whose RNIC fails (a topology node with nic.rdma)"},
		{"mode", "create_cq: RdmaContext::construct's ibv_create_cq fails with ENOMEM; reset_rejected: the driver rejects a redundant transition to RESET (Intel E810, irdma): each handshake's ibv_modify_qp to RESET of a new QP fails with EINVAL"},
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
	dev := paramsOf[RDMAContextParams](f).Device
	return RDMAPrimitive{Fault: f, Node: f.Target, CreateCQ: f.Mode == ModeCreateCQ, ResetRejected: f.Mode == ModeResetRejected, Device: dev}
}

// Weight keeps explore from drawing it: no engine of this host can check
// the model against a real RNIC.
func (rdmaContextKind) Weight(*Draw) int { return 0 }
