package sim

// VirtualTime implements scenarios.VirtualTimer: sim's worlds run in
// virtual time, so a run costs no wall time and its trace is reproducible.
func (Engine) VirtualTime() bool { return true }
