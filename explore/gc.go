package explore

import (
	"os"
	"runtime/debug"
)

// BatchGCPercent is the GC target `faultlab explore` runs with. A sim run
// allocates ~120 KB and keeps almost none of it, so at Go's default (100)
// the collector runs constantly over a live heap of a few MB and took
// ~30% of the CPU (docs/MEASUREMENTS.md, "Round 3: exploration speed").
const BatchGCPercent = 400

// TuneGC sets BatchGCPercent for the process unless the user set GOGC,
// and returns the undo. Only a program's main (the explore command) and
// the benchmark that measures it call it: the setting is process-wide.
func TuneGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(BatchGCPercent)
	return func() { debug.SetGCPercent(old) }
}
