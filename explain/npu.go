package explain

import "github.com/mooncake-faultlab/faultlab/scenarios"

// npuRemedy says what a remedy's npus changed on node n: the fix on the
// host (a newer CANN, the device NICs up, the device fault gone).
func npuRemedy(sc *scenarios.Scenario, n string, p scenarios.NPU) []string {
	var was scenarios.NPU
	for _, node := range sc.Topology.Nodes {
		if node.Name == n && node.NPU != nil {
			was = *node.NPU
		}
	}
	var out []string
	if p.CANN != "" && p.CANN != was.CANN {
		out = append(out, "on "+n+" CANN "+p.CANN)
	}
	if was.Link == "down" && p.Link != "down" {
		out = append(out, "on "+n+" bring the NPUs' device NICs up (hccn_tool -link; device IPs in hccn.conf, HCCL_IF_IP)")
	}
	if was.TransferStatus != 0 && p.TransferStatus == 0 {
		out = append(out, "on "+n+" clear the device-side transfer fault (the HCCL error in the device plog)")
	}
	return out
}
