package te

// probeShared reports whether another engine's probe shared the port this
// engine's findAvailableTcpPort bound and listened on it first. Only a
// probe with SO_REUSEADDR (Profile.ProbeReuseAddr, up to 0.3.6) lets the
// second bind through; from 0.3.6.post1 the other engine's bind fails and
// it draws another port, so the race is harmless and not consumed.
func (e *Engine) probeShared() bool {
	if !e.cfg.Profile.ProbeReuseAddr {
		return false
	}
	r, ok := e.cfg.Ports.(ProbeRacer)
	return ok && r.ProbeRaced()
}
