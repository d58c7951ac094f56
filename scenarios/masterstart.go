package scenarios

import "github.com/mooncake-faultlab/faultlab/trace"

// masterSource is the trace source of mooncake_master's lines.
const masterSource = "master"

// masterStartLines are mooncake_master's log lines among events, the
// trace between its (re)start and a phase's first step: what main()
// printed before it served (master.cpp v0.3.12.post1:1332-1363, the
// metadata cleanup's "Cannot open MOONCAKE_CONFIG_PATH …"), which
// Mooncake prints once, at start, whatever the steps do.
func masterStartLines(events []trace.Event) []trace.Event {
	var out []trace.Event
	for _, e := range events {
		if e.Kind == "log" && e.Source == masterSource {
			out = append(out, e)
		}
	}
	return out
}
