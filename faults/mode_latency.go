package faults

import (
	"fmt"
	"time"
)

// ModeLatency: every exchange is delayed by latency ± jitter per
// direction.
const ModeLatency = "latency"

type latency struct{}

func init() { RegisterMode(latency{}) }

func (latency) Name() string { return ModeLatency }
func (latency) Doc() string  { return "latency ± jitter added per direction" }
func (latency) Fields() []Field {
	return []Field{{"latency", "added delay (> 0)"}, {"jitter", "uniform ± spread (default 0)"}}
}

func (latency) Validate(f Fault) error {
	if f.Latency <= 0 {
		return fmt.Errorf("link latency: latency must be > 0")
	}
	return nil
}

func (latency) Simulate(f Fault, x *Exchange) Effect {
	per := f.Latency
	if f.Jitter > 0 {
		per += time.Duration(x.Rand.Int64N(int64(2*f.Jitter)+1)) - f.Jitter
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

func (latency) Toxic(f Fault) (string, map[string]any, bool) {
	return "latency", map[string]any{"latency": f.Latency.Milliseconds(), "jitter": f.Jitter.Milliseconds()}, true
}
