package faults

// ModeSlowClose: a closed connection stays open for delay before the
// close reaches the other side (toxiproxy's slow_close toxic). Requests
// and replies pass unchanged.
const ModeSlowClose = "slow_close"

type slowClose struct{}

func init() { RegisterMode(slowClose{}) }

func (slowClose) Name() string         { return ModeSlowClose }
func (slowClose) Doc() string          { return "closing a connection takes delay; data passes unchanged" }
func (slowClose) Fields() []Field      { return []Field{{"delay", "how long a close is held back"}} }
func (slowClose) Validate(Fault) error { return nil }
func (slowClose) Toxic(f Fault) (string, map[string]any, bool) {
	return "slow_close", map[string]any{"delay": f.Delay.Milliseconds()}, true
}

// Simulate: an exchange never waits for a close, so nothing changes.
func (slowClose) Simulate(Fault, *Exchange) Effect { return Effect{} }
