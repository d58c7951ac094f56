package sglang

import "github.com/mooncake-faultlab/faultlab/engine"

// BeyondInt64 says whether SGLang would read v, the value of the env var
// or config key name, as a Python int that does not fit int64 (Python's
// int is unbounded; the model's sizes and ports are int64). The scenario
// loader refuses such a value at its file:line, so it never reaches a run
// (where the model could only skip it).
func BeyondInt64(name, v string) bool {
	var err error
	switch name {
	case envGlobalSegment.name, "global_segment_size":
		_, err = ParseGlobalSegmentSize(v)
	case envMetricsPort.name:
		_, err = pyIntFromStr(v)
	default:
		return false
	}
	_, beyond := engine.AsUnsupported(err)
	return beyond
}
