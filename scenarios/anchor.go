package scenarios

import (
	"context"
	"fmt"
	"regexp"
	"strconv"

	"github.com/mooncake-faultlab/faultlab/faults"
)

// Step-anchored faults: `after: step N` arms a fault when main-phase step
// N (1-based) has returned, with `at` relative to that moment. On wall
// engines "during the puts" then does not drift with how long world start
// and setup took. The runner arms them through World.Arm like any fault,
// at the world time the step returned plus at; every engine supports it.

var afterRE = regexp.MustCompile(`^step ([0-9]+)$`)

// anchorStep is the step a fault is anchored to (0 = world start).
func (f FaultSpec) anchorStep() (int, error) {
	if f.After == "" {
		return 0, nil
	}
	m := afterRE.FindStringSubmatch(f.After)
	if m == nil {
		return 0, fmt.Errorf("after %q: want \"step N\" (N = a main-phase step, from 1)", f.After)
	}
	n, _ := strconv.Atoi(m[1])
	return n, nil
}

// checkAnchors validates after: against the steps.
func (d *decoder) checkAnchors(sc *Scenario) {
	for _, f := range sc.Faults {
		n, err := f.anchorStep()
		switch {
		case err != nil:
			d.at(f.Pos, "faults: %v", err)
		case f.After != "" && (n < 1 || n > len(sc.Steps)):
			d.at(f.Pos, "faults: after %q: the main phase has steps 1 to %d", f.After, len(sc.Steps))
		}
	}
}

// startFaults are the faults armed at world start.
func (r *run) startFaults() []faults.Fault {
	var fs []faults.Fault
	for _, f := range r.sc.Faults {
		if n, _ := f.anchorStep(); n == 0 {
			fs = append(fs, f.Fault())
		}
	}
	return fs
}

// armAnchored arms the faults anchored to step n (just returned): their At
// becomes the world's clock now (Mooncake time on every engine) plus at.
func (r *run) armAnchored(ctx context.Context, n int) error {
	var fs []faults.Fault
	now := r.world.Clock().Now()
	for _, f := range r.sc.Faults {
		if k, _ := f.anchorStep(); k == n {
			ff := f.Fault()
			ff.At += now
			fs = append(fs, ff)
		}
	}
	if len(fs) == 0 {
		return nil
	}
	r.tr.Record("harness", "anchor", "", fmt.Sprintf("arm %d fault(s) after step %d", len(fs), n))
	if err := r.world.Arm(ctx, fs); err != nil {
		return fmt.Errorf("arm faults after step %d: %w", n, err)
	}
	return nil
}
