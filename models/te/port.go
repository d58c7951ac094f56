package te

import (
	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
)

// topologyListsDevice is Topology::discover's isIbDeviceAvailable from
// v0.3.9 (#1375; topology.cpp v0.3.9:68-165, v0.3.12.post1:75-224), on
// named devices and auto-discovery alike: a device is listed only if one
// of its ports (here port 1, the device's one port) is IBV_PORT_ACTIVE.
// The port is printed as an int here, unlike rdma_context.cpp's uint8_t.
func (e *Engine) topologyListsDevice(d engine.RDMADevice) bool {
	if !e.cfg.Profile.TopologySkipsInactivePorts {
		return true
	}
	if d.PortActive() {
		e.logf(mlog.Info, "Device %s port 1 is available", d.Name)
		return true
	}
	e.logf(mlog.Info, "%s:1 is not active (state: %d)", d.Name, d.PortState)
	e.logf(mlog.Warning, "Device %s has no active ports, skipping", d.Name)
	e.logf(mlog.Warning, "Skipping unavailable device: %s", d.Name)
	return false
}

// portOpens is openRdmaDevice's first check, before the DMA-BUF and GID
// checks, at every release (rdma_context.cpp v0.3.8.post1:513-520,
// v0.3.12.post1:1203-1211): a port that is not IBV_PORT_ACTIVE fails the
// open, and construct prints the port as a raw byte (portText). From
// v0.3.9 only a device listed without its topology check gets here.
func (e *Engine) portOpens(d engine.RDMADevice) bool {
	if d.PortActive() {
		return true
	}
	e.logf(mlog.Warning, "Device %s port not active", d.Name)
	e.logf(mlog.Error, "Failed to open device %s on port %s with GID %d", d.Name, portText, e.gidIndex())
	return false
}
