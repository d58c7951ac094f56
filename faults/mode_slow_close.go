package faults

import "time"

// ModeSlowClose: a closed connection stays open for delay before the
// close reaches the other side (toxiproxy's slow_close toxic). Requests
// and replies pass unchanged.
const ModeSlowClose = "slow_close"

// SlowCloseParams are slow_close's parameters.
type SlowCloseParams struct {
	Delay time.Duration `yaml:"delay" doc:"how long a close is held back" gen:",10ms,500ms"`
}

type slowClose struct{ modeBase }

func init() { RegisterMode(slowClose{}) }

func (slowClose) Name() string         { return ModeSlowClose }
func (slowClose) Doc() string          { return "closing a connection takes delay; data passes unchanged" }
func (slowClose) Params() any          { return SlowCloseParams{} }
func (slowClose) Validate(Fault) error { return nil }
func (slowClose) Toxic(f Fault) (string, map[string]any, bool) {
	return "slow_close", map[string]any{"delay": paramsOf[SlowCloseParams](f).Delay.Milliseconds()}, true
}

// Simulate: an exchange never waits for a close, so nothing changes.
func (slowClose) Simulate(Fault, *Exchange) Effect { return Effect{} }
