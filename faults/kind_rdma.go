package faults

import (
	"fmt"
	"slices"
	"strings"
)

// RDMA: the RNICs of a node complete RDMA work requests in error — a
// protection fault, a peer that never acknowledges, a flapping port. The
// transfer engine's worker pool sees each as a failed work completion
// (ibv_wc.status != IBV_WC_SUCCESS); setup, which posts no work request,
// is untouched.
const RDMA Kind = "rdma"

// RDMAParams are an rdma fault's parameters.
type RDMAParams struct {
	AfterWR int64 `yaml:"after_wr" doc:"work requests the node's RNICs complete successfully before the first failure (≥ 0; default 0: the first fails)" gen:",1" trace:"after_wr=%d"`
}

// WCStatus is one ibv_wc_status an rdma fault completes work requests with.
type WCStatus struct {
	Mode string // the fault's mode
	Enum string // the libibverbs enumerator
	Text string // ibv_wc_status_str's text, which Mooncake logs
}

// WCStatuses are the statuses an rdma fault can inject (libibverbs
// verbs.c ibv_wc_status_str). Flush errors are
// not among them: a QP in error flushes the rest of its queue itself.
var WCStatuses = []WCStatus{
	{"local_length", "IBV_WC_LOC_LEN_ERR", "local length error"},
	{"local_qp_operation", "IBV_WC_LOC_QP_OP_ERR", "local QP operation error"},
	{"local_protection", "IBV_WC_LOC_PROT_ERR", "local protection error"},
	{"memory_window_bind", "IBV_WC_MW_BIND_ERR", "memory management operation error"},
	{"bad_response", "IBV_WC_BAD_RESP_ERR", "bad response error"},
	{"local_access", "IBV_WC_LOC_ACCESS_ERR", "local access error"},
	{"remote_invalid_request", "IBV_WC_REM_INV_REQ_ERR", "remote invalid request error"},
	{"remote_access", "IBV_WC_REM_ACCESS_ERR", "remote access error"},
	{"remote_operation", "IBV_WC_REM_OP_ERR", "remote operation error"},
	{"retry_exceeded", "IBV_WC_RETRY_EXC_ERR", "transport retry counter exceeded"},
	{"rnr_retry_exceeded", "IBV_WC_RNR_RETRY_EXC_ERR", "RNR retry counter exceeded"},
	{"fatal", "IBV_WC_FATAL_ERR", "fatal error"},
	{"response_timeout", "IBV_WC_RESP_TIMEOUT_ERR", "response timeout error"},
	{"general", "IBV_WC_GENERAL_ERR", "general error"},
}

// ModePortDown is the rdma mode of a port that goes down for the fault's
// span (a link flap): the RNIC raises IBV_EVENT_PORT_ERR, work requests
// posted meanwhile end in IBV_WC_RETRY_EXC_ERR (nothing acknowledges
// them), and IBV_EVENT_PORT_ACTIVE when it heals.
const ModePortDown = "port_down"

// ModeQPExhausted is the rdma mode of an RNIC whose queue-pair pool is
// used up (other processes' or leaked endpoints' QPs hold it): every
// ibv_create_qp of a new endpoint fails with ENOMEM; endpoints already
// connected keep working. No work request fails.
const ModeQPExhausted = "qp_exhausted"

// WCStatusOf is the status mode names (port_down: the retry counter's).
func WCStatusOf(mode string) (WCStatus, bool) {
	if mode == ModePortDown {
		mode = "retry_exceeded"
	}
	i := slices.IndexFunc(WCStatuses, func(s WCStatus) bool { return s.Mode == mode })
	if i < 0 {
		return WCStatus{}, false
	}
	return WCStatuses[i], true
}

// RDMAModes are the rdma kind's modes: the statuses, then port_down and
// qp_exhausted.
func RDMAModes() []string {
	out := make([]string, 0, len(WCStatuses)+2)
	for _, s := range WCStatuses {
		out = append(out, s.Mode)
	}
	return append(out, ModePortDown, ModeQPExhausted)
}

// RDMAPrimitive: the RNICs of Node complete work requests with Status,
// after AfterWR have completed successfully (counted from the fault's
// start, over every process on the node); healing restores them.
// PortDown: the port itself went down (ModePortDown): its async events
// too. QPExhausted: no work request fails, new queue pairs cannot be
// created (ModeQPExhausted; Status is zero).
//
// CreateCQ: ibv_create_cq fails with ENOMEM on Device ("" = every RNIC of
// the node) while the transport is installed (kind rdma-context).
// ResetRejected: Device's driver rejects a new QP's redundant transition
// to RESET (kind rdma-context, reset_rejected).
// StaleHandshake, DestroyRace: the interleavings of kind rdma-endpoint.
type RDMAPrimitive struct {
	Fault       Fault
	Node        string
	Status      WCStatus
	AfterWR     int64
	PortDown    bool
	QPExhausted bool
	CreateCQ    bool
	// ResetRejected: ibv_modify_qp to RESET fails with EINVAL on a QP
	// already in RESET, on Device.
	ResetRejected bool
	Device        string
	// RegMR: every ibv_reg_mr on Device fails with this errno (kind
	// rdma-context, reg_mr; zero: registration is untouched).
	RegMR Errno
	// RegMRFailingOnly: only registrations that fail anyway take RegMR's
	// errno (scope failing).
	RegMRFailingOnly bool
	// StaleHandshake: every active handshake's reply is a stale
	// generation's; DestroyRace: the next transfer on an existing
	// endpoint meets its destruction.
	StaleHandshake bool
	DestroyRace    bool
}

// AtSetup: the primitive acts while the transport is installed, before
// any work request (no worker pool is involved).
func (p RDMAPrimitive) AtSetup() bool { return p.CreateCQ }

func (p RDMAPrimitive) Source() Fault { return p.Fault }

type rdmaKind struct{ kindBase }

func init() { RegisterKind(rdmaKind{}) }

func (rdmaKind) Kind() Kind { return RDMA }
func (rdmaKind) Doc() string {
	return "a node's RNICs complete RDMA work requests with an error status (the transfer engine's failed work completions), or have no queue pair left to create"
}
func (rdmaKind) Fields() []Field {
	return []Field{
		{"target", "the node whose RNICs fail (a topology node with nic.rdma)"},
		{"mode", "the ibv_wc status the work requests end in (" + strings.Join(RDMAModes()[:len(WCStatuses)], " | ") + "), or port_down: the port goes down for the fault's span (async events port error / port active; work requests meanwhile: retry_exceeded), or qp_exhausted: the RNIC's queue-pair pool is used up (ibv_create_qp of a new endpoint fails with ENOMEM)"},
	}
}

func (rdmaKind) Params(Fault) any { return RDMAParams{} }

func (rdmaKind) Validate(f Fault) error {
	if f.Target == "" {
		return fmt.Errorf("rdma: give target, the node whose RNICs fail (e.g. target: tp0)")
	}
	if err := oneOf(f, "mode", f.Mode, RDMAModes()); err != nil {
		return err
	}
	if a := paramsOf[RDMAParams](f).AfterWR; a < 0 {
		return fmt.Errorf("rdma: after_wr %d: give 0 or more work requests", a)
	}
	return nil
}

func (rdmaKind) LinkTarget(Fault) string { return "" }

func (rdmaKind) Modes() []string { return RDMAModes() }

func (rdmaKind) Lower(f Fault) Primitive {
	s, _ := WCStatusOf(f.Mode)
	return RDMAPrimitive{Fault: f, Node: f.Target, Status: s, AfterWR: paramsOf[RDMAParams](f).AfterWR, PortDown: f.Mode == ModePortDown, QPExhausted: f.Mode == ModeQPExhausted}
}

// Weight keeps explore from drawing it: no engine of this host can check
// the model against a real RNIC.
func (rdmaKind) Weight(*Draw) int { return 0 }
