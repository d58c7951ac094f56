package sim

// A process stopped by SIGSTOP (process or container pause, a TE process's
// Pause) stops its ping threads with it: the master sees no ping until
// SIGCONT, and the thread whose sleep ended meanwhile pings at once then
// (real 0.3.14, mooncake_client paused 15 s: client_liveness_suspected
// 10 s after the pause, client_liveness_recovered, signal=ping 4 ms after
// SIGCONT; 0.3.13.post1: client_expired and unmount_expired_mem_segment at
// client_ttl; docs/REAL-FINDINGS.md §65, §72).

// frozen: b's thread runs in a stopped process.
func (w *World) frozen(b *heartbeat) bool {
	if b.mem == nil {
		return false
	}
	return w.paused[b.mem] || (b.mem == w.clientMem && w.clientState == paused)
}

// thaw runs at SIGCONT: each held iteration of a thread no longer frozen
// runs now, in the order the threads were started.
func (w *World) thaw() {
	for _, b := range w.beats {
		if !b.held || w.frozen(b) || b.ev != nil {
			continue
		}
		b.held = false
		b.ev = w.k.After(0, "heartbeat", func() { w.beat(b) })
	}
	w.answerAbandoned()
}
