package scenarios

import (
	"maps"
	"math"
	"sort"

	"github.com/mooncake-faultlab/faultlab/engine"
)

// timings sums each method's f of its calls (Call.MS, Call.RacyMS).
func timings(calls []Call, f func(Call) float64) map[string]float64 {
	if len(calls) == 0 {
		return nil
	}
	m := map[string]float64{}
	for _, c := range calls {
		m[c.Method] += f(c)
	}
	for k, v := range m {
		m[k] = math.Round(v*1000) / 1000
	}
	return m
}

// accountTimings is each method's time of one account of the model's
// (Call.RacyMS, Call.HostMS), nil where none.
func accountTimings(calls []Call, f func(Call) float64) map[string]float64 {
	m := timings(calls, f)
	maps.DeleteFunc(m, func(_ string, v float64) bool { return v == 0 })
	if len(m) == 0 {
		return nil
	}
	return m
}

// CallCounts is how many calls of each method there were.
func CallCounts(calls []Call) map[string]int {
	n := map[string]int{}
	for _, c := range calls {
		n[c.Method]++
	}
	return n
}

// TimingDiffs lists the methods (sorted) whose time in got (the model's,
// ms, in calls: CallCounts, racy of it: Observed.RacyMS, host work of it:
// Observed.HostMS) is outside the tolerance of ref (a wall-clock
// engine's): ref more than TimingLate later, or more than TimingSlack plus
// the racy time earlier. Methods only one side called are codes' business.
func TimingDiffs(ref, got map[string]float64, calls map[string]int, racy, host map[string]float64) []string {
	var out []string
	for m, r := range ref {
		g, ok := got[m]
		if !ok {
			continue
		}
		if g-r > TimingSlack(r)+racy[m] || r-g > TimingLate(g, calls[m], host[m]) {
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out
}

// refTimings picks the reference column: the reference engine's (real
// Mooncake, engine.IsReference) when it ran, else the first engine's.
func refTimings(ran []EngineOutcome) map[string]float64 {
	for _, e := range ran {
		if engine.IsReference(e.Engine) {
			return e.TimingsMS
		}
	}
	if len(ran) == 0 {
		return nil
	}
	return ran[0].TimingsMS
}
