package scenarios

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mooncake-faultlab/faultlab/faults"
)

// Anchored faults. `after: step N` arms a fault when main-phase step N
// (1-based) has returned; `after: call M` when the main phase's first
// Mooncake call M (setup, put, ...) has returned, also inside one step
// (SGLang's init runs setup, then its warmup puts). `at` counts from that
// moment. On wall-clock engines "between setup and the warmup" then does
// not drift with how long process start and setup took under load. The
// runner arms them through World.Arm like any fault, at the world time the
// anchor was reached plus at; every engine supports it.

var afterRE = regexp.MustCompile(`^(?:step ([0-9]+)|call ([a-z_]+))$`)

// anchorCalls are the Mooncake methods SGLang calls that a fault can be
// anchored to (the names the trace's return lines use).
var anchorCalls = []string{"setup", "setup_dummy", "register_buffer", "put", "get", "is_exist",
	"batch_put_from", "batch_get_into", "batch_is_exist", "health_check"}

// anchor is where a fault's at counts from: world start (the zero value),
// the end of main-phase step Step, or the main phase's first return of Call.
type anchor struct {
	Step int
	Call string
}

func (f FaultSpec) anchor() (anchor, error) {
	if f.After == "" {
		return anchor{}, nil
	}
	m := afterRE.FindStringSubmatch(f.After)
	if m == nil {
		return anchor{}, fmt.Errorf("after %q: want \"step N\" (N = a main-phase step, from 1) or \"call M\" (M = a Mooncake method: %s)", f.After, strings.Join(anchorCalls, ", "))
	}
	if m[2] != "" {
		if !slices.Contains(anchorCalls, m[2]) {
			return anchor{}, fmt.Errorf("after %q: no Mooncake method %q; anchors: %s", f.After, m[2], strings.Join(anchorCalls, ", "))
		}
		return anchor{Call: m[2]}, nil
	}
	n, _ := strconv.Atoi(m[1])
	return anchor{Step: n}, nil
}

// checkAnchors validates after: against the steps.
func (d *decoder) checkAnchors(sc *Scenario) {
	for _, f := range sc.Faults {
		a, err := f.anchor()
		switch {
		case err != nil:
			d.at(f.Pos, "faults: %v", err)
		case a.Call == "" && f.After != "" && (a.Step < 1 || a.Step > len(sc.Steps)):
			d.at(f.Pos, "faults: after %q: the main phase has steps 1 to %d", f.After, len(sc.Steps))
		}
	}
}

// startFaults are the faults armed at world start.
func (r *run) startFaults() []faults.Fault {
	var fs []faults.Fault
	for _, f := range r.sc.Faults {
		if a, _ := f.anchor(); a == (anchor{}) {
			fs = append(fs, f.Fault())
		}
	}
	return fs
}

// armAnchored arms the faults anchored to a (just reached): their At
// becomes the world's clock now (Mooncake time on every engine) plus at.
// A call anchor fires once, at its first return.
func (r *run) armAnchored(ctx context.Context, a anchor) error {
	r.anchorMu.Lock()
	if a.Call != "" {
		if r.callsSeen[a.Call] {
			r.anchorMu.Unlock()
			return nil
		}
		if r.callsSeen == nil {
			r.callsSeen = map[string]bool{}
		}
		r.callsSeen[a.Call] = true
	}
	r.anchorMu.Unlock()
	var fs []faults.Fault
	now := r.world.Clock().Now()
	for _, f := range r.sc.Faults {
		if k, _ := f.anchor(); k == a {
			ff := f.Fault()
			ff.At += now
			fs = append(fs, ff)
		}
	}
	if len(fs) == 0 {
		return nil
	}
	what := fmt.Sprintf("step %d", a.Step)
	if a.Call != "" {
		what = "call " + a.Call
	}
	r.tr.Record("harness", "anchor", "", fmt.Sprintf("arm %d fault(s) after %s", len(fs), what))
	if err := r.world.Arm(ctx, fs); err != nil {
		return fmt.Errorf("arm faults after %s: %w", what, err)
	}
	return nil
}

// onReturn is the main phase's hook on every Mooncake call's return
// (sglang.Launch.OnReturn); the sides call it from their own goroutines.
// An arming error ends the phase as a harness error (phaseAnchorErr).
func (r *run) onReturn(ctx context.Context, method string) {
	if err := r.armAnchored(ctx, anchor{Call: method}); err != nil {
		r.anchorMu.Lock()
		r.anchorErr = errors.Join(r.anchorErr, err)
		r.anchorMu.Unlock()
	}
}

func (r *run) hasCallAnchors() bool {
	for _, f := range r.sc.Faults {
		if a, _ := f.anchor(); a.Call != "" {
			return true
		}
	}
	return false
}

// takeAnchorErr returns (and clears) the errors of call-anchored arming.
func (r *run) takeAnchorErr() error {
	r.anchorMu.Lock()
	defer r.anchorMu.Unlock()
	err := r.anchorErr
	r.anchorErr = nil
	return err
}
