package fakeengine

// setPortRace arms or heals a port-race fault.
func (w *World) setPortRace(on bool) {
	w.netMu.Lock()
	defer w.netMu.Unlock()
	w.portRace = on
}

// ProbeRaced is te.ProbeRacer: an armed port-race fault is the other
// engine on the host whose probe shares the port this probe bound; it
// listens there once, so the next probe is on its own again.
func (b portBinder) ProbeRaced() bool {
	w := b.p.w
	w.netMu.Lock()
	defer w.netMu.Unlock()
	if !w.portRace {
		return false
	}
	w.portRace = false
	return true
}
