package sim

import (
	"context"

	"github.com/mooncake-faultlab/faultlab/engine"
)

// SetNPU implements engine.NPUChanger: processes started afterwards see
// the node's new NPU setup (a remedy's npus).
func (w *World) SetNPU(_ context.Context, node string, npu engine.NPUSpec) error {
	return w.setNode(node, "npus", func(n *engine.NodeSpec) { n.NPU = &npu })
}

var _ engine.NPUChanger = (*World)(nil)
