package faults

import (
	"fmt"
	"time"
)

// ModeLatency: every exchange is delayed by latency ± jitter per
// direction.
const ModeLatency = "latency"

// LatencyParams are latency's parameters.
type LatencyParams struct {
	Latency time.Duration `yaml:"latency" doc:"added delay (> 0)" gen:"10ms,200ms,2s" trace:"latency=%s"`
	Jitter  time.Duration `yaml:"jitter" doc:"uniform ± spread (default 0)" gen:",5ms,50ms" trace:"jitter=%s"`
}

type latency struct{ modeBase }

func init() { RegisterMode(latency{}) }

func (latency) Name() string { return ModeLatency }
func (latency) Doc() string  { return "latency ± jitter added per direction" }
func (latency) Params() any  { return LatencyParams{} }

func (latency) Validate(f Fault) error {
	if paramsOf[LatencyParams](f).Latency <= 0 {
		return fmt.Errorf("link latency: latency must be > 0")
	}
	return nil
}

func (latency) Simulate(f Fault, x *Exchange) Effect {
	p := paramsOf[LatencyParams](f)
	per := p.Latency
	if p.Jitter > 0 {
		per += time.Duration(x.Rand.Int64N(int64(2*p.Jitter)+1)) - p.Jitter
		if per < 0 {
			per = 0
		}
	}
	var e Effect
	if x.Up {
		e.Delay += per
	}
	if x.Down {
		e.Delay += per
	}
	return e
}

// MaxDelay: both directions at the top of the jitter.
func (latency) MaxDelay(f Fault) time.Duration {
	p := paramsOf[LatencyParams](f)
	return 2 * (p.Latency + p.Jitter)
}

func (latency) Toxic(f Fault) (string, map[string]any, bool) {
	p := paramsOf[LatencyParams](f)
	return "latency", map[string]any{"latency": p.Latency.Milliseconds(), "jitter": p.Jitter.Milliseconds()}, true
}

// Holds: an exchange sent before the clear is still delayed.
func (latency) Holds(Fault) bool { return true }
