package sim

import "github.com/mooncake-faultlab/faultlab/models/master"

// driveMonitor runs the master's client monitor thread at its ticks
// (ClientMonitorFunc, every ClientMonitorPeriod; ≤ 0.3.6 only in HA mode):
// its lines come at their tick whether or not an RPC arrives. Real 0.3.14:
// client_liveness_suspected ~10 s after a SIGKILL, with no RPC in between
// (docs/REAL-FINDINGS.md §65); real 0.3.13.post1: client_expired 10.7 s
// after a SIGSTOP while no other client pinged (a store without a segment:
// its ping thread starts at its first mount; §72). The chain ends with
// this master instance.
func (w *World) driveMonitor(m *master.Master) {
	if cfg := m.Config(); !cfg.Version.Heartbeat && !cfg.EnableHA {
		return
	}
	var tick func()
	tick = func() {
		if w.closed || w.master != m {
			return
		}
		if w.masterState == running {
			m.Monitor()
		}
		w.k.After(master.ClientMonitorPeriod, "master monitor", tick)
	}
	w.k.After(master.ClientMonitorPeriod, "master monitor", tick)
}
