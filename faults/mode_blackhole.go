package faults

// ModeBlackhole: data is dropped and the connection never closes; the
// caller waits its own timeout.
const ModeBlackhole = "blackhole"

type blackhole struct{ modeBase }

func init() { RegisterMode(blackhole{}) }

func (blackhole) Name() string         { return ModeBlackhole }
func (blackhole) Doc() string          { return "nothing ever answers (toxiproxy timeout toxic, timeout 0)" }
func (blackhole) Validate(Fault) error { return nil }
func (blackhole) Simulate(Fault, *Exchange) Effect {
	return Effect{Verdict: Blackhole}
}

func (blackhole) Toxic(Fault) (string, map[string]any, bool) {
	// timeout 0: data is dropped and the connection never closes.
	return "timeout", map[string]any{"timeout": 0}, true
}

// Holds: an exchange in the blackhole ends only at its timeout.
func (blackhole) Holds(Fault) bool { return true }

// Silence is a link on which nothing answers (a blackhole's effect), for
// an engine that models a network partition on a party's links.
func Silence() LinkEffect {
	return LinkEffect{f: Fault{Kind: Link, Mode: ModeBlackhole}, m: blackhole{}}
}
