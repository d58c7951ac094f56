package scenarios

import (
	"slices"
	"strconv"
	"strings"

	"github.com/mooncake-faultlab/faultlab/engine"
)

// LabelNeedsAscend marks scenarios whose nodes have Ascend NPUs: the real
// engine has none to run them on.
const LabelNeedsAscend = "needs-ascend"

func (d *decoder) checkNPU(sc *Scenario, n NPU, gpu bool, where string) {
	if !sc.HasLabel(LabelNeedsAscend) {
		d.at(n.Pos, "%s: a scenario with Ascend NPUs carries the label %s (the real engine has none to run it on)", where, LabelNeedsAscend)
	}
	if gpu {
		d.at(n.Pos, "%s: a node runs Mooncake's CUDA or its Ascend build, not both: drop gpu or npu", where)
	}
	if n.CANN != "" {
		if _, err := engine.CANNAtLeast(n.CANN, engine.CANNForADXL); err != nil {
			d.at(n.Pos, "%s.cann: %v", where, err)
		}
	}
	// link: the loader checks the enum (schema.go).
	if s := n.TransferStatus; s != 0 && !slices.Contains(engine.AdxlTransferStatuses, uint32(s)) {
		var valid []string
		for _, v := range engine.AdxlTransferStatuses {
			valid = append(valid, strconv.FormatUint(uint64(v), 10))
		}
		d.at(n.Pos, "%s.transfer_status: %d is not an adxl::Status a transfer ends in; valid: %s", where, s, strings.Join(valid, ", "))
	}
	if s := n.ConnectStatus; s != 0 && !slices.Contains(engine.AdxlConnectStatuses, uint32(s)) {
		var valid []string
		for _, v := range engine.AdxlConnectStatuses {
			valid = append(valid, strconv.FormatUint(uint64(v), 10))
		}
		d.at(n.Pos, "%s.connect_status: %d is not an adxl::Status a refused Connect returns; valid: %s", where, s, strings.Join(valid, ", "))
	}
}

// spec is the engine's view of a node's NPUs.
func (n NPU) spec() engine.NPUSpec {
	return engine.NPUSpec{CANN: n.CANN, LinkDown: n.Link == "down", TransferStatus: uint32(n.TransferStatus), ConnectStatus: uint32(n.ConnectStatus)}
}
