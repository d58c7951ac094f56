package scenarios

import (
	"fmt"
	"maps"
)

// checkPageCapacity: a set or get of more pages than the node's host pool
// holds is the file's mistake (exit 2 with file:line), not a harness error
// in the middle of a run (SGLang would index past its host buffer). It
// runs after the defaults (pool size, layout, page bytes).
func checkPageCapacity(sc *Scenario) []FieldError {
	var errs []FieldError
	check := func(steps []Step, pools map[string]HostPool) {
		for _, st := range steps {
			if st.Action != StepSet && st.Action != StepGet {
				continue
			}
			hp, ok := pools[st.Node]
			if !ok || hp.PageBytes <= 0 {
				continue
			}
			buf := int64(hp.Size) // MLA: one kv buffer
			if hp.Layout != "MLA" {
				buf /= 2 // MHA: the k and v halves, each page_bytes a page
			}
			if room := buf / int64(hp.PageBytes); int64(len(st.Pages)) > room {
				errs = append(errs, FieldError{Pos: st.Pos, Msg: fmt.Sprintf(
					"%s: %d pages do not fit %s's host pool (%d bytes, %s, %d bytes a page per component: room for %d); ask for fewer pages or a larger hostpool.size",
					st.Action, len(st.Pages), st.Node, int64(hp.Size), hp.Layout, int64(hp.PageBytes), room)})
			}
		}
	}
	pools := map[string]HostPool{}
	for _, n := range sc.Topology.Nodes {
		pools[n.Name] = n.HostPool
	}
	check(sc.Steps, pools)
	if r := sc.Remedy; r != nil {
		rp := maps.Clone(pools)
		maps.Copy(rp, r.HostPools) // the remedy's pools replace the node's
		check(r.Steps, rp)
	}
	return errs
}
