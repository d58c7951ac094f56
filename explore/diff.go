package explore

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// WallJitter is how late a step or call of a scaled wall engine (fake) can
// run on this shared 2-core machine: up to 240 ms of wall time per call at
// load average 8 (sim,fake, 2026-11-30: setup 45 ms on sim, 1,710 ms on fake
// at scale 0.02 = 33 ms of wall; 4.4 s against 16.3 s = 238 ms). At timeout
// scale s it is WallJitter/s of Mooncake time, added to both duration
// tolerances: at 0.02, 12.5 s, so a missing 30 s timeout still shows.
const WallJitter = 250 * time.Millisecond

// DivergesAt compares two engines' results of the same scenario, phase by
// phase: exception class and text (addresses abstracted), return codes,
// process death, phase duration beyond DurationTolAbs/DurationTolRel, and
// the time spent in each Mooncake call beyond scenarios.TimingTolerance of
// the second engine's (real's: no process start in it). b ran at timeout
// scale bScale (fake: its wall durations scaled back by 1/bScale, jitter
// included; 1 = unscaled). "" = they agree.
func DivergesAt(a, b scenarios.Result, bScale float64) string {
	slack := 0.0
	if bScale > 0 && bScale < 1 {
		slack = float64(WallJitter.Milliseconds()) / bScale
	}
	var out []string
	phase := func(name string, oa, ob *scenarios.Observed) {
		if oa == nil || ob == nil {
			if (oa == nil) != (ob == nil) {
				out = append(out, name+": ran on one engine only")
			}
			return
		}
		ra, rb := a, b
		ra.Observed, rb.Observed = *oa, *ob
		ra.Engine, rb.Engine = "a", "b"
		cs := scenarios.Compare([]scenarios.Result{ra, rb})
		if len(cs) == 0 {
			return
		}
		c := cs[0]
		ea, eb := c.Engines[0], c.Engines[1]
		// Phase durations and per-call times are judged here (explore's own
		// tolerances, host costs exempt), not by Compare's.
		diffs := slices.DeleteFunc(slices.Clone(c.Differences), func(d string) bool {
			return d == "verdict" || d == "duration" || strings.HasPrefix(d, "timing.")
		})
		host := hostCost(oa, ob) != ""
		if durationDiffers(ea.DurationMS, eb.DurationMS, slack) && !host {
			diffs = append(diffs, "duration")
		}
		var calls []string
		if !host {
			calls = slices.DeleteFunc(scenarios.TimingDiffs(eb.TimingsMS, ea.TimingsMS, ea.CallCounts, ea.RacyMS, ea.HostMS), func(m string) bool {
				allowed := slack + scenarios.TimingSlack(eb.TimingsMS[m])
				if eb.TimingsMS[m] < ea.TimingsMS[m] {
					allowed += ea.RacyMS[m] // b came in early by a race a's model waited out
				}
				return math.Abs(ea.TimingsMS[m]-eb.TimingsMS[m]) <= allowed
			})
		}
		if len(diffs) == 0 && len(calls) == 0 {
			return
		}
		var what []string
		for _, d := range diffs {
			switch d {
			case "codes":
				what = append(what, fmt.Sprintf("codes %s=%v %s=%v", a.Engine, ea.Codes, b.Engine, eb.Codes))
			case "exception.class", "exception.message":
				if !slices.Contains(what, "exception") {
					what = append(what, fmt.Sprintf("exception %s=%s %s=%s", a.Engine, exc(ea.Exception), b.Engine, exc(eb.Exception)))
				}
			case "died":
				what = append(what, fmt.Sprintf("death %s=%v %s=%v", a.Engine, ea.Died, b.Engine, eb.Died))
			case "duration":
				what = append(what, fmt.Sprintf("duration %s=%.1fs %s=%.1fs", a.Engine, ea.DurationMS/1000, b.Engine, eb.DurationMS/1000))
			default:
				what = append(what, d) // a kind Compare learnt later: named, never an empty reason
			}
		}
		for _, m := range calls {
			what = append(what, fmt.Sprintf("timing %s %s=%.0fms %s=%.0fms", m, a.Engine, ea.TimingsMS[m], b.Engine, eb.TimingsMS[m]))
		}
		out = append(out, name+": "+strings.Join(what, "; "))
	}
	phase("main", &a.Observed, &b.Observed)
	phase("remedy", a.Remedy, b.Remedy)
	return strings.Join(out, " | ")
}

// DurationTolerance: two engines' phase durations agree when they are
// within 5 s or 25 % of the longer one. Real phases carry process start,
// Python import and scheduling overhead (a healthy real setup takes 0.5–1.2 s
// on an idle machine where sim counts 0, and up to 2.8 s with -j 4 on 2
// shared cores); a wrong timeout or retry count still shows once it adds
// up past 5 s (the generator's wall timeouts are 0.5–2 s per RPC).
const (
	DurationTolAbs = 5000.0 // ms
	DurationTolRel = 0.25
)

// hostCosts are phases whose real duration is this host's, not
// Mooncake's logic, marked with the reason (docs/REAL-FINDINGS.md): the
// log line real prints and why sim counts it as free.
var hostCosts = []struct{ line, reason string }{
	{"AlignedClientBufferAllocator: allocated", "enable_ssd_offload allocates and frees a 1.25 GiB client buffer (0.3.12+) before the FileStorage check: 1–6 s of page faults on this 2-core machine, free in sim"},
}

// hostCost returns why a duration difference is the host's, or "".
func hostCost(a, b *scenarios.Observed) string {
	for _, o := range []*scenarios.Observed{a, b} {
		for _, l := range o.Logs {
			for _, h := range hostCosts {
				if strings.Contains(l, h.line) {
					return h.reason
				}
			}
		}
	}
	return ""
}

func durationDiffers(a, b, slack float64) bool {
	d := math.Abs(a - b)
	return d > DurationTolAbs+slack && d > DurationTolRel*max(a, b)
}

func exc(e *scenarios.Exception) string {
	if e == nil {
		return "none"
	}
	return fmt.Sprintf("%s(%q)", e.Class, e.Message)
}

// sameDiff: a shrunk candidate diverges "the same way" when the same kinds
// of difference (codes, exception, death, duration) appear in the same phases.
func sameDiff(got, want string) bool {
	return got != "" && diffShape(got) == diffShape(want)
}

func diffShape(d string) string {
	var parts []string
	for _, ph := range strings.Split(d, " | ") {
		name, rest, _ := strings.Cut(ph, ": ")
		var kinds []string
		for _, w := range strings.Split(rest, "; ") {
			k, _, _ := strings.Cut(w, " ")
			kinds = append(kinds, k)
		}
		parts = append(parts, name+":"+strings.Join(kinds, ","))
	}
	return strings.Join(parts, "|")
}
