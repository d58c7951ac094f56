package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mooncake-faultlab/faultlab/mooncake"
)

func normalize(s string) string { return mooncake.NormalizeAddresses(s) }

// logsMention reports whether a log line contains want, addresses normalized.
func logsMention(logs []string, want string) bool {
	return slices.ContainsFunc(logs, func(l string) bool { return strings.Contains(normalize(l), normalize(want)) })
}

func excString(e *Exception) string {
	if e == nil {
		return "no exception"
	}
	return fmt.Sprintf("%s: %q", e.Class, e.Message)
}

// Check compares one phase's observations with its expectation and returns
// the first mismatch ("" = all met). Order: process death, exception,
// codes, logs, no_logs, duration, step results. A death nobody expected is
// always a mismatch. Durations are judged within the engine's band.
func Check(e Expect, o Observed, stepWants []stepWant, band Band) string {
	if d := e.Dies; d != nil {
		switch {
		case o.Died == nil:
			return fmt.Sprintf("expected the process to die with %s, observed %s and no death", d.How(), excString(o.Exception))
		case o.Died.How() != d.How():
			return fmt.Sprintf("expected the process to die with %s, observed it die with %s: %s", d.How(), o.Died.How(), o.Died.Reason)
		case d.Reason != nil && !strings.Contains(normalize(o.Died.Reason), normalize(*d.Reason)):
			return fmt.Sprintf("expected a %s death with reason containing %q, observed %q", d.How(), *d.Reason, o.Died.Reason)
		case d.In != "" && o.Died.In != d.In:
			return fmt.Sprintf("expected a %s death in a %s call, observed it in %s", d.How(), d.In, CallText(o.Died.In))
		}
	} else if o.Died != nil && !e.Invariants { // under invariants, the known-text invariant judges deaths
		return fmt.Sprintf("unexpected process death (%s): %s", o.Died.How(), o.Died.Reason)
	}
	if e.OK != nil {
		if *e.OK && o.Exception != nil {
			return fmt.Sprintf("expected ok, observed %s", excString(o.Exception))
		}
		if !*e.OK && o.Exception == nil && e.Raises == nil && e.Dies == nil {
			return "expected an exception, observed none"
		}
	}
	if r := e.Raises; r != nil {
		switch {
		case o.Exception == nil:
			return fmt.Sprintf("expected %s, observed no exception", raisesString(r))
		case o.Exception.Class != r.Class:
			return fmt.Sprintf("expected exception class %s, observed %s", r.Class, excString(o.Exception))
		case r.Message != nil && normalize(*r.Message) != normalize(o.Exception.Message):
			return fmt.Sprintf("expected %s message %q, observed %q", r.Class, *r.Message, o.Exception.Message)
		}
	}
	for _, m := range sortedKeys(e.Codes) {
		want, got := e.Codes[m], o.CodesOf(m)
		if want.Every != nil {
			if len(got) == 0 {
				return fmt.Sprintf("expected %s to return %d, observed no %s call", m, *want.Every, m)
			}
			for _, g := range got {
				if g != *want.Every {
					return fmt.Sprintf("expected every %s call to return %d, observed %v", m, *want.Every, got)
				}
			}
		} else if !want.Matches(got) {
			if len(want.Seq) == 0 {
				return fmt.Sprintf("expected no %s call, observed %v", m, got)
			}
			return fmt.Sprintf("expected %s codes %v, observed %v", m, want, fmtInts(got))
		}
	}
	// One cursor per source: the expected order binds lines of one process,
	// never two (their pipes interleave as the scheduler pleases).
	source := func(j int) string {
		if len(o.LogSources) == len(o.Logs) {
			return o.LogSources[j]
		}
		return ""
	}
	cursor := map[string]int{}
	for i, want := range e.Logs {
		idx := -1
		for j := range o.Logs {
			if j >= cursor[source(j)] && strings.Contains(normalize(o.Logs[j]), normalize(want)) {
				idx = j
				break
			}
		}
		if idx < 0 {
			if logsMention(o.Logs, want) {
				return fmt.Sprintf("expected log %q after %q, observed it only before (out of order)", want, e.Logs[i-1])
			}
			return fmt.Sprintf("expected log containing %q, observed none (%d log lines)", want, len(o.Logs))
		}
		cursor[source(idx)] = idx + 1
	}
	for _, bad := range e.NoLogs {
		for _, l := range o.Logs {
			if strings.Contains(normalize(l), normalize(bad)) {
				return fmt.Sprintf("expected no log containing %q, observed %q", bad, l)
			}
		}
	}
	d := time.Duration(o.DurationMS * float64(time.Millisecond))
	if r := e.Duration; r != nil {
		if r.Min != nil && d < band.Min(r.Min.D()) {
			return fmt.Sprintf("expected duration >= %s%s, observed %s", r.Min.D(), bandNote(band.Min(r.Min.D()), r.Min.D()), d)
		}
		if r.Max != nil && d > band.Max(r.Max.D()) {
			return fmt.Sprintf("expected duration <= %s%s, observed %s", r.Max.D(), bandNote(band.Max(r.Max.D()), r.Max.D()), d)
		}
	}
	if e.Within != nil && d > band.Max(e.Within.D()) {
		return fmt.Sprintf("timed out after %s%s (phase took %s)", e.Within.D(), bandNote(band.Max(e.Within.D()), e.Within.D()), d)
	}
	for _, sw := range stepWants {
		if !jsonEqual(sw.want, sw.got) {
			return fmt.Sprintf("step %d (%s): expected %v, observed %v", sw.index+1, sw.step, sw.want, sw.got)
		}
	}
	return ""
}

// bandNote names the wall-clock band's bound where it differs from the
// scenario's own.
func bandNote(bound, d time.Duration) string {
	if bound == d {
		return ""
	}
	return " (wall-clock band " + bound.String() + ")"
}

type stepWant struct {
	index     int
	step      string
	want, got any
}

func raisesString(r *Raises) string {
	if r.Message == nil {
		return r.Class
	}
	return fmt.Sprintf("%s: %q", r.Class, *r.Message)
}

func fmtInts(x []int) string {
	if x == nil {
		return "no call"
	}
	return fmt.Sprint(x)
}
