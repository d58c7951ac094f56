package te_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// TestPortDownAtOpen: an RNIC whose port 1 is not IBV_PORT_ACTIVE when the
// transfer engine opens it. Up to 0.3.8.post1 the topology lists it and
// openRdmaDevice refuses it (rdma_context.cpp v0.3.8.post1:513-520, the
// port a raw byte in construct's line); from 0.3.9 Topology::discover
// skips it first, named or auto-discovered (topology.cpp v0.3.9:68-165),
// and auto-discovery left with no HCA installs TCP.
func TestPortDownAtOpen(t *testing.T) {
	down := engine.RDMADevice{Name: "mlx5_0", PortState: 1}
	up := engine.RDMADevice{Name: "mlx5_1", PortState: engine.IBVPortActive}
	lines := []string{"Device ", "mlx5_", "Skipping", "Topology discovery complete", "Failed to open device",
		"Disable device", "RdmaTransport:", "Failed to install", "installTransport"}
	for _, tc := range []struct {
		name, version string
		devices       *string
		nics          []engine.RDMADevice
		env           map[string]string
		wantErr       error
		transports    []string
		want          []string
	}{
		{"named, 0.3.8.post1", "0.3.8.post1", strp("mlx5_0"), []engine.RDMADevice{down, up}, nil, mooncake.INTERNAL_ERROR, nil, []string{
			"Topology discovery complete with specified devices. Found 1 HCAs",
			"Device mlx5_0 port not active",
			"Failed to open device mlx5_0 on port \x01 with GID -1",
			"Disable device mlx5_0",
			"RdmaTransport: No available RNIC",
			"RdmaTransport: cannot initialize RDMA resources",
			"Failed to install RDMA transport with specified devices",
		}},
		{"named, init, MC_GID_INDEX, 0.3.8.post1", "0.3.8.post1", strp("mlx5_0"), []engine.RDMADevice{{Name: "mlx5_0", PortState: 2}}, map[string]string{"MC_GID_INDEX": "3"}, mooncake.INTERNAL_ERROR, nil, []string{
			"Topology discovery complete with specified devices. Found 1 HCAs",
			"Device mlx5_0 port not active",
			"Failed to open device mlx5_0 on port \x01 with GID 3",
			"Disable device mlx5_0",
			"RdmaTransport: No available RNIC",
			"RdmaTransport: cannot initialize RDMA resources",
			"Failed to install RDMA transport with specified devices",
		}},
		{"named, 0.3.9", "0.3.9", strp("mlx5_0"), []engine.RDMADevice{down, up}, nil, mooncake.INTERNAL_ERROR, nil, []string{
			"mlx5_0:1 is not active (state: 1)",
			"Device mlx5_0 has no active ports, skipping",
			"Skipping unavailable device: mlx5_0",
			"Topology discovery complete with specified devices. Found 0 HCAs",
			"RdmaTransport: No available RNIC",
			"RdmaTransport: cannot initialize RDMA resources",
			"Failed to install RDMA transport with specified devices",
		}},
		{"named, armed, 0.3.12.post1", "0.3.12.post1", strp("mlx5_0"), []engine.RDMADevice{{Name: "mlx5_0", PortState: 3}}, nil, mooncake.INTERNAL_ERROR, nil, []string{
			"mlx5_0:1 is not active (state: 3)",
			"Device mlx5_0 has no active ports, skipping",
			"Skipping unavailable device: mlx5_0",
			"Topology discovery complete with specified devices. Found 0 HCAs",
			"RdmaTransport: No available RNIC",
			"RdmaTransport: cannot initialize RDMA resources",
			"Failed to install RDMA transport with specified devices",
		}},
		{"named both, 0.3.8.post1", "0.3.8.post1", strp("mlx5_0,mlx5_1"), []engine.RDMADevice{down, up}, nil, nil, []string{"rdma"}, []string{
			"Topology discovery complete with specified devices. Found 2 HCAs",
			"Device mlx5_0 port not active",
			"Failed to open device mlx5_0 on port \x01 with GID -1",
			"Disable device mlx5_0",
		}},
		{"named both, 0.3.9", "0.3.9", strp("mlx5_0,mlx5_1"), []engine.RDMADevice{down, up}, nil, nil, []string{"rdma"}, []string{
			"mlx5_0:1 is not active (state: 1)",
			"Device mlx5_0 has no active ports, skipping",
			"Skipping unavailable device: mlx5_0",
			"Device mlx5_1 port 1 is available",
			"Topology discovery complete with specified devices. Found 1 HCAs",
		}},
		{"auto, 0.3.8.post1", "0.3.8.post1", nil, []engine.RDMADevice{down}, nil, mooncake.INTERNAL_ERROR, nil, []string{
			"Topology discovery complete. Found 1 HCAs.",
			"Device mlx5_0 port not active",
			"Failed to open device mlx5_0 on port \x01 with GID -1",
			"Disable device mlx5_0",
			"RdmaTransport: No available RNIC",
			"RdmaTransport: cannot initialize RDMA resources",
			"Failed to install RDMA transport, type=rdma",
		}},
		// No HCA left and no MC_FORCE_HCA: TCP, without a word about it
		// (transfer_engine_impl.cpp v0.3.9:275-308).
		{"auto, 0.3.9", "0.3.9", nil, []engine.RDMADevice{down}, nil, nil, []string{"tcp"}, []string{
			"mlx5_0:1 is not active (state: 1)",
			"Device mlx5_0 has no active ports, skipping",
			"Skipping unavailable device: mlx5_0",
			"Topology discovery complete. Found 0 HCAs.",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, logs := newEngine(t, tc.version, tc.nics, tc.env)
			err := e.InitStore(context.Background(), "localhost:12345", te.P2PHandshake, "rdma", tc.devices)
			if err != tc.wantErr && !(err != nil && tc.wantErr != nil && err.Error() == tc.wantErr.Error()) {
				t.Fatalf("err = %v, want %v (logs %q)", err, tc.wantErr, *logs)
			}
			if !slices.Equal(e.Transports(), tc.transports) {
				t.Errorf("transports = %v, want %v", e.Transports(), tc.transports)
			}
			var got []string
			for _, l := range *logs {
				if slices.ContainsFunc(lines, func(p string) bool { return strings.HasPrefix(l, p) }) {
					got = append(got, l)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("port lines\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
