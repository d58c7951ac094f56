package scenarios

import "github.com/mooncake-faultlab/faultlab/engine"

// VirtualTimer is implemented by engines whose worlds run in virtual time
// (sim). Every other engine is wall-clock: its runs take real time under
// load and their traces are not reproducible (replay compares outcomes).
type VirtualTimer interface{ VirtualTime() bool }

// Wall reports whether eng runs in wall-clock time.
func Wall(eng engine.Engine) bool {
	v, ok := eng.(VirtualTimer)
	return !ok || !v.VirtualTime()
}
