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

// ModeRegMR is the rdma-context mode of a device whose kernel driver
// refuses memory registration: ibv_reg_mr (and ibv_reg_dmabuf_mr) returns
// NULL with the fault's errno. Mooncake's path after it does not depend
// on the errno (rdma_context.cpp registerMemoryRegionInternal: PLOG
// "Failed to register memory <addr>", ERR_CONTEXT, at v0.3.4 …
// v0.3.12.post1): what a field log's errno reproduces.
const ModeRegMR = "reg_mr"

// RDMAContextModes are the rdma-context kind's modes.
var RDMAContextModes = []string{ModeCreateCQ, ModeResetRejected, ModeRegMR}

// RDMAContextParams are an rdma-context fault's parameters.
type RDMAContextParams struct {
	Device string `yaml:"device" doc:"the RNIC whose context fails (a name in the node's nic.rdma, e.g. mlx5_1); unset: every RNIC of the node" gen:",mlx5_0" trace:"device=%q"`
	Errno  string `yaml:"errno" doc:"reg_mr only, and required there: the errno ibv_reg_mr fails with (EINVAL, EFAULT, ENOMEM, EAGAIN, EIO, EPERM, EACCES, EBUSY, ENODEV, ENOSYS, EOPNOTSUPP)" trace:"errno=%s"`
	Scope  string `yaml:"scope" doc:"reg_mr only: all (default): every registration of the device fails; failing: only those the world's own cause fails (a memlock limit, leaked keys, GPU memory without peermem) fail with this errno instead - a field log's errno on the world's failure" trace:"scope=%s"`
}

// Reg_mr scopes: which registrations an rdma-context reg_mr fault fails.
const (
	RegMRAll     = "all"
	RegMRFailing = "failing"
)

type rdmaContextKind struct{ kindBase }

func init() { RegisterKind(rdmaContextKind{}) }

func (rdmaContextKind) Kind() Kind { return RDMAContext }
func (rdmaContextKind) Doc() string {
	return "a node's RNIC cannot build its RDMA context when the transport is installed: ibv_create_cq fails with ENOMEM (a broken NIC); or its driver rejects the endpoint's redundant QP reset, so no connection of it is set up; or it refuses memory registration with an errno"
}
func (rdmaContextKind) Fields() []Field {
	return []Field{
		{"target", "the node whose RNIC fails (a topology node with nic.rdma)"},
		{"mode", "create_cq: RdmaContext::construct's ibv_create_cq fails with ENOMEM; reset_rejected: the driver rejects a redundant transition to RESET (Intel E810, irdma): each handshake's ibv_modify_qp to RESET of a new QP fails with EINVAL; reg_mr: every ibv_reg_mr of the device fails with the errno given"},
	}
}

func (rdmaContextKind) Params(Fault) any { return RDMAContextParams{} }

func (rdmaContextKind) Validate(f Fault) error {
	if f.Target == "" {
		return fmt.Errorf("%s: give target, the node whose RNIC fails (e.g. target: tp0)", f.Kind)
	}
	if err := oneOf(f, "mode", f.Mode, RDMAContextModes); err != nil {
		return err
	}
	ps := paramsOf[RDMAContextParams](f)
	e := ps.Errno
	if ps.Scope != "" {
		if err := oneOf(f, "scope", ps.Scope, []string{RegMRAll, RegMRFailing}); err != nil {
			return err
		}
	}
	switch {
	case f.Mode != ModeRegMR && (e != "" || ps.Scope != ""):
		return fmt.Errorf("%s: mode %s takes no errno or scope (mode reg_mr does)", f.Kind, f.Mode)
	case f.Mode == ModeRegMR && e == "":
		return fmt.Errorf("%s: mode reg_mr: give errno, what ibv_reg_mr fails with (e.g. errno: EINVAL)", f.Kind)
	case f.Mode == ModeRegMR:
		return oneOf(f, "errno", e, RegMRErrnos)
	}
	return nil
}

func (rdmaContextKind) LinkTarget(Fault) string { return "" }

func (rdmaContextKind) Modes() []string { return RDMAContextModes }

func (rdmaContextKind) Lower(f Fault) Primitive {
	ps := paramsOf[RDMAContextParams](f)
	p := RDMAPrimitive{Fault: f, Node: f.Target, CreateCQ: f.Mode == ModeCreateCQ, ResetRejected: f.Mode == ModeResetRejected, Device: ps.Device}
	if f.Mode == ModeRegMR {
		p.RegMR, _ = ErrnoNamed(ps.Errno)
		p.RegMRFailingOnly = ps.Scope == RegMRFailing
	}
	return p
}

// Weight keeps explore from drawing it: no engine of this host can check
// the model against a real RNIC.
func (rdmaContextKind) Weight(*Draw) int { return 0 }
