package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// NPUSpec is a node's Ascend NPUs as the Ascend direct transport meets
// them (models/te/ascend.go).
type NPUSpec struct {
	// CANN is the installed CANN toolkit's version ("8.3.RC1"): ADXL's
	// AdxlEngine::Initialize fails below CANNForADXL.
	CANN string
	// LinkDown: the NPUs' device NICs (hccn_tool -link: "link status:
	// DOWN") do not come up, so a peer's ADXL Connect to them times out.
	LinkDown bool
	// TransferStatus is the adxl::Status the node's one-sided transfers
	// (ADXL TransferSync: HcclBatchPut/Get) end in; 0 = SUCCESS.
	TransferStatus uint32
	// ConnectStatus is the adxl::Status the node's ADXL Connect to a peer
	// returns (0 = SUCCESS, or the link's TIMEOUT): CANN refusing the
	// channel, e.g. PARAM_INVALID for an initiator and a target on one
	// NPU device (CANN's channel_msg_handler.cc "not support connect with
	// self device", in the device plog).
	ConnectStatus uint32
}

// CANNForADXL is the oldest CANN whose ADXL the Ascend direct transport
// initialises (vllm-ascend's PD and KV-pool guides require CANN 8.3.RC1
// or newer for use_ascend_direct, vllm-ascend#5635).
const CANNForADXL = "8.3.RC1"

// NPUChanger is a World whose nodes' NPU setup can change between phases
// (a remedy's npus: a newer CANN, a device NIC brought up): processes
// started afterwards see the new setup.
type NPUChanger interface {
	SetNPU(ctx context.Context, node string, npu NPUSpec) error
}

// AdxlTransferStatuses are the adxl::Status values (adxl_compat.h
// 3b5a594:41-49) a node's transfers may be set to end in
// (NPUSpec.TransferStatus): PARAM_INVALID, NOT_CONNECTED, NOTIFY_FAILED,
// RESOURCE_EXHAUSTED, FAILED. TIMEOUT is left out: its wait is not
// modelled.
var AdxlTransferStatuses = []uint32{103900, 103902, 103904, 203900, 503900}

// AdxlConnectStatuses are the adxl::Status values a node's ADXL Connect
// may be set to return (NPUSpec.ConnectStatus): PARAM_INVALID,
// RESOURCE_EXHAUSTED, FAILED (adxl_compat.h 3b5a594:41-49). TIMEOUT is
// the peer's link down (NPUSpec.LinkDown).
var AdxlConnectStatuses = []uint32{103900, 203900, 503900}

// CANNAtLeast says whether CANN version v is min or newer. Versions are
// MAJOR.MINOR.RCn (a release candidate) or MAJOR.MINOR.PATCH (the
// release, after its candidates: 8.0.RC3 < 8.0.0 < 8.0.1).
func CANNAtLeast(v, min string) (bool, error) {
	a, err := parseCANN(v)
	if err != nil {
		return false, err
	}
	b, err := parseCANN(min)
	if err != nil {
		return false, err
	}
	for i := range a {
		if a[i] != b[i] {
			return a[i] > b[i], nil
		}
	}
	return true, nil
}

// parseCANN is (major, minor, 0 for RC / 1 for a release, n).
func parseCANN(v string) ([4]int, error) {
	bad := fmt.Errorf("CANN version %q: want MAJOR.MINOR.RCn or MAJOR.MINOR.PATCH (8.3.RC1, 8.2.0)", v)
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return [4]int{}, bad
	}
	var out [4]int
	for i, s := range parts[:2] {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return [4]int{}, bad
		}
		out[i] = n
	}
	last, ga := parts[2], 1
	if rc, ok := strings.CutPrefix(last, "RC"); ok {
		last, ga = rc, 0
	}
	n, err := strconv.Atoi(last)
	if err != nil || n < 0 {
		return [4]int{}, bad
	}
	out[2], out[3] = ga, n
	return out, nil
}
