package sim

import "github.com/mooncake-faultlab/faultlab/models/master"

// driveMonitor runs the client liveness registry's monitor thread of a
// 0.3.14 master (mooncake.Profile.ClientLiveness) at its ticks: its
// suspected and offline lines come ClientMonitorPeriod apart whether or not
// an RPC arrives (real 0.3.14: client_liveness_suspected ~10 s after a
// SIGKILL, with no RPC in between; docs/REAL-FINDINGS.md §65). Earlier
// releases keep the lazy evaluation at each RPC their expectations were
// measured against. The chain ends with this master instance.
func (w *World) driveMonitor(m *master.Master) {
	if !m.Config().Version.ClientLiveness {
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
