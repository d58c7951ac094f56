package faults

// ModeResetPeer: the connection is reset (ECONNRESET) after delay.
const ModeResetPeer = "reset_peer"

type resetPeer struct{}

func init() { RegisterMode(resetPeer{}) }

func (resetPeer) Name() string         { return ModeResetPeer }
func (resetPeer) Doc() string          { return "connection reset (ECONNRESET) after delay" }
func (resetPeer) Fields() []Field      { return []Field{{"delay", "time before the reset (default 0)"}} }
func (resetPeer) Validate(Fault) error { return nil }
func (resetPeer) Simulate(f Fault, _ *Exchange) Effect {
	return Effect{Verdict: ResetPeer, Delay: f.Delay}
}

func (resetPeer) Toxic(f Fault) (string, map[string]any, bool) {
	return "reset_peer", map[string]any{"timeout": f.Delay.Milliseconds()}, true
}
