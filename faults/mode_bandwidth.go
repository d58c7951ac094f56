package faults

import (
	"fmt"
	"time"
)

// ModeBandwidth: the link carries rate_kbps KB/s.
const ModeBandwidth = "bandwidth"

// BandwidthParams are bandwidth's parameters.
type BandwidthParams struct {
	RateKBps int64 `yaml:"rate_kbps" doc:"KB/s (> 0)" gen:"100,10000" trace:"rate=%dKB/s" scale:"rate"`
}

type bandwidth struct{ modeBase }

func init() { RegisterMode(bandwidth{}) }

func (bandwidth) Name() string { return ModeBandwidth }
func (bandwidth) Doc() string  { return "throughput limited to rate_kbps KB/s" }
func (bandwidth) Params() any  { return BandwidthParams{} }

func (bandwidth) Validate(f Fault) error {
	if paramsOf[BandwidthParams](f).RateKBps <= 0 {
		return fmt.Errorf("link bandwidth: rate_kbps must be > 0")
	}
	return nil
}

func (bandwidth) Simulate(f Fault, x *Exchange) Effect {
	p := paramsOf[BandwidthParams](f)
	return Effect{Delay: time.Duration(float64(x.Bytes()) / float64(p.RateKBps*1000) * float64(time.Second))}
}

func (bandwidth) Toxic(f Fault) (string, map[string]any, bool) {
	return "bandwidth", map[string]any{"rate": paramsOf[BandwidthParams](f).RateKBps}, true
}
