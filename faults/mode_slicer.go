package faults

import (
	"fmt"
	"time"
)

// ModeSlicer: the stream is cut into average_size ± size_variation byte
// slices, delay apart.
const ModeSlicer = "slicer"

type slicer struct{}

func init() { RegisterMode(slicer{}) }

func (slicer) Name() string { return ModeSlicer }
func (slicer) Doc() string  { return "stream cut into slices of average_size bytes, delay apart" }
func (slicer) Fields() []Field {
	return []Field{{"average_size", "bytes per slice (> 0)"}, {"size_variation", "± bytes"}, {"delay", "pause between slices"}}
}

func (slicer) Validate(f Fault) error {
	if f.AverageSize <= 0 {
		return fmt.Errorf("link slicer: average_size must be > 0")
	}
	return nil
}

func (slicer) Simulate(f Fault, x *Exchange) Effect {
	// Slicing only re-chunks the stream; with a delay between slices it
	// adds latency per slice.
	var e Effect
	if f.AverageSize > 0 && f.Delay > 0 {
		n := (x.ReqBytes + x.RespBytes + f.AverageSize - 1) / f.AverageSize
		e.Delay = time.Duration(n) * f.Delay
	}
	return e
}

func (slicer) Toxic(f Fault) (string, map[string]any, bool) {
	// slicer's delay is in microseconds.
	return "slicer", map[string]any{"average_size": f.AverageSize, "size_variation": f.SizeVariation,
		"delay": f.Delay.Microseconds()}, true
}
