package sim

// ProbeRaced is te.ProbeRacer: an armed port-race fault is the other
// engine on the host whose probe shares the port this probe bound; it
// listens there once, so the next probe is on its own again.
func (p portBinder) ProbeRaced() bool {
	if !p.w.portRace {
		return false
	}
	p.w.portRace = false
	return true
}
