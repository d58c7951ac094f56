package scenarios

import (
	"math"
	"sort"

	"github.com/mooncake-faultlab/faultlab/engine"
)

// timings sums each method's call durations.
func timings(calls []Call) map[string]float64 {
	if len(calls) == 0 {
		return nil
	}
	m := map[string]float64{}
	for _, c := range calls {
		m[c.Method] += c.MS
	}
	for k, v := range m {
		m[k] = math.Round(v*1000) / 1000
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
// ms, in calls: CallCounts) is outside the tolerance of ref (a wall-clock
// engine's): ref more than TimingLate later, or more than TimingSlack
// earlier. Methods only one side called are codes' business.
func TimingDiffs(ref, got map[string]float64, calls map[string]int) []string {
	var out []string
	for m, r := range ref {
		g, ok := got[m]
		if !ok {
			continue
		}
		if g-r > TimingSlack(r) || r-g > TimingLate(g, calls[m]) {
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
