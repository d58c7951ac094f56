package scenarios

import "github.com/mooncake-faultlab/faultlab/trace"

// The trace sources of the servers' own lines: mooncake_master's and the
// standalone HTTP metadata server's.
const (
	masterSource   = "master"
	metadataSource = "metadata"
)

// serverStartLines are the servers' log lines among events, the trace
// between their (re)start and a phase's first step: what mooncake_master's
// main() printed before it served (master.cpp v0.3.12.post1:1332-1363,
// the metadata cleanup's "Cannot open MOONCAKE_CONFIG_PATH …") and the
// metadata server's refusal to start (0.3.14), which they print once, at
// start, whatever the steps do.
func serverStartLines(events []trace.Event) []trace.Event {
	var out []trace.Event
	for _, e := range events {
		if e.Kind == "log" && (e.Source == masterSource || e.Source == metadataSource) {
			out = append(out, e)
		}
	}
	return out
}
