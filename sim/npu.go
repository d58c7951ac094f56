package sim

import (
	"context"
	"fmt"
	"slices"

	"github.com/mooncake-faultlab/faultlab/engine"
)

// SetNPU implements engine.NPUChanger: processes started afterwards see
// the node's new NPU setup (a remedy's npus).
func (w *World) SetNPU(_ context.Context, node string, npu engine.NPUSpec) error {
	nodes := slices.Clone(w.nodes) // the spec's slice is the runner's
	for i := range nodes {
		if nodes[i].Name == node {
			nodes[i].NPU = &npu
			w.nodes = nodes
			return nil
		}
	}
	return fmt.Errorf("sim: remedy npus: no node %q in the topology", node)
}

var _ engine.NPUChanger = (*World)(nil)
