package scenarios

import (
	"slices"

	"github.com/mooncake-faultlab/faultlab/faults"
)

// checkFaultTopology rejects faults that act on a party the topology does
// not have. These facts are the scenario's, not an engine's: every engine
// would refuse them the same way.
func (d *decoder) checkFaultTopology(t Topology, fs FaultSpec) {
	f := fs.Fault()
	metadata := t.Metadata
	if metadata == "" {
		metadata = "P2PHANDSHAKE"
	}
	has := map[string]bool{
		"master":   t.Master == nil || t.Master.Present == nil || *t.Master.Present,
		"metadata": metadata == "http" || metadata == "master" || metadata == "etcd",
		"client":   t.Client != nil && (t.Client.Present == nil || *t.Client.Present),
	}
	has[faults.TargetMasterLeader] = t.Master != nil && t.Master.HA
	if f.Kind == faults.Process {
		switch {
		case f.Target == "metadata" && metadata == "master":
			d.at(fs.Pos, "faults: process %s: metadata is embedded in the master here (topology.metadata master); target the master", f.Action)
		case f.Target == "metadata" && metadata != "http" && metadata != "etcd":
			d.at(fs.Pos, "faults: process %s: the topology has no metadata server (topology.metadata %s)", f.Action, metadata)
		case !has[f.Target] && f.Target != "metadata":
			d.at(fs.Pos, "faults: process %s: the topology has no %s", f.Action, serverName(f.Target))
		}
		return
	}
	node := func(rnic bool) bool {
		return slices.ContainsFunc(t.Nodes, func(n Node) bool { return n.Name == f.Target && (!rnic || len(n.NIC.RDMA) > 0) })
	}
	switch f.Kind {
	case faults.TEMetadataRace:
		if !node(false) {
			d.at(fs.Pos, "faults: %s: target %q is not a topology node", f.Kind, f.Target)
		}
		return
	case faults.RDMA, faults.RDMAContext, faults.RDMAEndpoint:
		if !node(true) {
			d.at(fs.Pos, "faults: %s: target %q is not a topology node with an RNIC (nodes: - name: %s, nic: {rdma: [{name: mlx5_0}]})", f.Kind, f.Target, f.Target)
		}
		return
	}
	if to := f.LinkTarget(); to != "" {
		if present, isRole := has[to]; isRole && !present {
			d.at(fs.Pos, "faults: %s: the topology has no %s", f.Kind, serverName(to))
		}
	}
}

func serverName(role string) string {
	switch role {
	case "master":
		return "mooncake_master (topology.master.present false)"
	case faults.TargetMasterLeader:
		return "HA master leader (topology.master.ha: true)"
	case "client":
		return "mooncake_client (topology.mooncake_client)"
	case "metadata":
		return "metadata server (topology.metadata P2PHANDSHAKE)"
	}
	return role
}
