package main

import (
	"io"

	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/timeline"
)

// writeTimeline writes the HTML timeline of results to path.
func writeTimeline(path string, rs []scenarios.Result) error {
	return writeFile(path, func(w io.Writer) error { return timeline.Write(w, "faultlab timeline", rs) })
}
