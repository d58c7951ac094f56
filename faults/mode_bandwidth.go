package faults

import (
	"fmt"
	"time"
)

// ModeBandwidth: the link carries rate_kbps KB/s.
const ModeBandwidth = "bandwidth"

type bandwidth struct{}

func init() { RegisterMode(bandwidth{}) }

func (bandwidth) Name() string    { return ModeBandwidth }
func (bandwidth) Doc() string     { return "throughput limited to rate_kbps KB/s" }
func (bandwidth) Fields() []Field { return []Field{{"rate_kbps", "KB/s (> 0)"}} }

func (bandwidth) Validate(f Fault) error {
	if f.RateKBps <= 0 {
		return fmt.Errorf("link bandwidth: rate_kbps must be > 0")
	}
	return nil
}

func (bandwidth) Simulate(f Fault, x *Exchange) Effect {
	return Effect{Delay: time.Duration(float64(x.Bytes()) / float64(f.RateKBps*1000) * float64(time.Second))}
}

func (bandwidth) Toxic(f Fault) (string, map[string]any, bool) {
	return "bandwidth", map[string]any{"rate": f.RateKBps}, true
}
