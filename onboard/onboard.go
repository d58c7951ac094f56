// Package onboard is `faultlab versions add`: bring a Mooncake release, or
// a build a developer made from a branch, onto the real engine and show
// what it changes. Install it, run the catalog on real at it and at the
// release it is compared with, list every scenario whose outcome changed,
// and run a small differential sample (explore, sim against real) at it.
// The steps that touch the machine are Deps, so the logic is tested with
// a fake installer and runner.
package onboard

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// Build is what gets onboarded.
type Build struct {
	// Name is the release ("0.3.15") or the build's own name ("mybranch").
	Name string
	// Derives is the release the build runs as: its scenarios, its
	// profile on sim. For a release in mooncake.Versions it is Name; for a
	// release not yet modelled and for a developer build, an earlier
	// release.
	Derives string
	// Wheel is a wheel file a developer built ("" = PyPI, RecipeFor).
	Wheel string
	// Package overrides the PyPI distribution of a new release ("" = the
	// recipe's guess: the non-CUDA wheel).
	Package string
	// SGLangCheckout is an SGLang source tree (a changed
	// mooncake_store.py) to run instead of the SGLang release; the build
	// then plays SGLang with real code at Derives, against the release's
	// own SGLang code. RealSGLang: SGLang's own code plays SGLang (set for
	// a checkout and for the release it is compared with).
	SGLangCheckout string
	RealSGLang     bool
}

// Modelled reports whether the build is a release the models know (sim
// runs it at its own profile).
func (b Build) Modelled() bool { return b.Name == b.Derives }

// Outcome is one scenario's result on one run of the catalog.
type Outcome struct {
	Scenario string
	Verdict  string // pass, fail, skip, error
	// Observed is the outcome the catalog table prints (codes or the
	// exception), with addresses abstracted.
	Observed string
	// Reason says why a run failed or skipped (not compared).
	Reason string
}

// Change is a scenario whose outcome differs between the two runs.
type Change struct {
	Scenario      string
	Before, After Outcome // Before.Verdict "" = absent from that run
}

// Sample is the differential run's totals.
type Sample struct {
	Seeds, Ran, Divergences, Violations, Errors int
}

// Deps are the steps that touch the machine.
type Deps interface {
	// Install makes the build runnable on real (idempotent).
	Install(ctx context.Context, b Build) error
	// Catalog runs the catalog on real: at the release itself when b is
	// a release in mooncake.Versions, else the build's wheel running the
	// scenarios of b.Derives.
	Catalog(ctx context.Context, b Build) ([]Outcome, error)
	// Explore runs seeds generated scenarios on sim (at b.Derives) and
	// real (the build) and counts their differences.
	Explore(ctx context.Context, b Build, seeds int) (Sample, error)
}

// Report is what Onboard found.
type Report struct {
	Build    Build
	Against  string
	Changed  []Change
	Compared int // scenarios run in both
	Sample   Sample
}

// Options configure Onboard.
type Options struct {
	// Against is the release to compare with ("" = the release before
	// Derives, or Derives itself for a build).
	Against string
	// Seeds is the differential sample's size (0 = none).
	Seeds int
	// Out gets one line per step ("" writer = nowhere).
	Out io.Writer
}

// nameRE is what a build's name may be: it names a cache directory.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$`)

// Resolve fills Derives and checks the build; a release not in
// mooncake.Versions derives from the newest one.
func Resolve(b Build) (Build, error) {
	if !nameRE.MatchString(b.Name) {
		return b, fmt.Errorf("versions add %q: a name is 1–64 letters, digits, '.', '_', '+' or '-'", b.Name)
	}
	_, verr := mooncake.ParseVersion(b.Name)
	known := verr == nil && slices.Contains(mooncake.Versions, mustCanon(b.Name))
	if b.Derives == "" {
		switch {
		case known:
			b.Derives = mustCanon(b.Name)
		case verr == nil:
			b.Derives = mooncake.Latest
		default:
			return b, fmt.Errorf("versions add %q: a build that is not a release needs --derives RELEASE (one of %s)", b.Name, strings.Join(mooncake.Versions, ", "))
		}
	}
	if _, err := mooncake.ProfileFor(b.Derives); err != nil {
		return b, fmt.Errorf("versions add %s --derives: %w", b.Name, err)
	}
	b.Derives = mustCanon(b.Derives)
	if known {
		b.Name = mustCanon(b.Name)
		if b.Derives != b.Name {
			return b, fmt.Errorf("versions add %s: a modelled release derives from itself, not %s", b.Name, b.Derives)
		}
		if b.Wheel != "" || b.Package != "" {
			return b, fmt.Errorf("versions add %s: a modelled release installs by its recipe; give a build of your own a name of its own (--wheel needs a name that is not a release)", b.Name)
		}
	}
	if b.SGLangCheckout != "" {
		if known || b.Wheel != "" || b.Package != "" {
			return b, fmt.Errorf("versions add %s: an SGLang checkout runs under a name of its own with Mooncake --derives RELEASE; give no --wheel or --package", b.Name)
		}
		b.RealSGLang = true
		return b, nil
	}
	if verr != nil && b.Wheel == "" {
		return b, fmt.Errorf("versions add %s: a build that is not a release needs --wheel PATH (or --sglang-checkout DIR)", b.Name)
	}
	return b, nil
}

func mustCanon(s string) string { return mooncake.MustVersion(s).String() }

// previous is the release before v in mooncake.Versions.
func previous(v string) (string, error) {
	i := slices.Index(mooncake.Versions, v)
	if i <= 0 {
		return "", fmt.Errorf("no release before %s in mooncake.Versions", v)
	}
	return mooncake.Versions[i-1], nil
}

// Onboard installs b, runs the catalog at it and at the release it is
// compared with, and the differential sample.
func Onboard(ctx context.Context, d Deps, b Build, o Options) (Report, error) {
	out := o.Out
	if out == nil {
		out = io.Discard
	}
	b, err := Resolve(b)
	if err != nil {
		return Report{}, err
	}
	against := o.Against
	switch {
	case against != "":
		if _, err := mooncake.ProfileFor(against); err != nil {
			return Report{}, fmt.Errorf("versions add %s --against: %w", b.Name, err)
		}
		against = mustCanon(against)
	case b.Modelled():
		if against, err = previous(b.Name); err != nil {
			return Report{}, fmt.Errorf("versions add %s: %w; give --against", b.Name, err)
		}
	default:
		against = b.Derives
	}
	rep := Report{Build: b, Against: against}
	base := Build{Name: against, Derives: against, RealSGLang: b.RealSGLang}

	fmt.Fprintf(out, "install %s (and %s)\n", b.Name, against)
	if err := d.Install(ctx, base); err != nil {
		return rep, fmt.Errorf("versions add %s: install %s: %w", b.Name, against, err)
	}
	if b.SGLangCheckout == "" { // a checkout installs nothing: it runs in the release's SGLang venv
		if err := d.Install(ctx, b); err != nil {
			return rep, fmt.Errorf("versions add %s: install: %w", b.Name, err)
		}
	}
	fmt.Fprintf(out, "catalog on real at %s\n", against)
	before, err := d.Catalog(ctx, base)
	if err != nil {
		return rep, fmt.Errorf("versions add %s: catalog at %s: %w", b.Name, against, err)
	}
	fmt.Fprintf(out, "catalog on real at %s\n", b.label())
	after, err := d.Catalog(ctx, b)
	if err != nil {
		return rep, fmt.Errorf("versions add %s: catalog: %w", b.Name, err)
	}
	rep.Changed, rep.Compared = Diff(before, after)
	if o.Seeds > 0 && b.SGLangCheckout != "" {
		fmt.Fprintf(out, "no differential sample: explore plays SGLang with the Go model, not a checkout\n")
	} else if o.Seeds > 0 {
		fmt.Fprintf(out, "differential sample: %d seeds, sim at %s against real %s\n", o.Seeds, b.Derives, b.Name)
		if rep.Sample, err = d.Explore(ctx, b, o.Seeds); err != nil {
			return rep, fmt.Errorf("versions add %s: differential sample: %w", b.Name, err)
		}
	}
	return rep, nil
}

func (b Build) label() string {
	if b.SGLangCheckout != "" {
		return fmt.Sprintf("%s (SGLang from %s, Mooncake %s)", b.Name, b.SGLangCheckout, b.Derives)
	}
	if b.Modelled() {
		return b.Name
	}
	return fmt.Sprintf("%s (as %s)", b.Name, b.Derives)
}

// Diff lists the scenarios that ran in both and whose verdict or observed
// outcome differ, in the order of after (then those only in before), and
// how many ran in both. A skip on either side (a versions list, a missing
// capability) says nothing about the release: not a change.
func Diff(before, after []Outcome) ([]Change, int) {
	prev := map[string]Outcome{}
	for _, o := range before {
		prev[o.Scenario] = o
	}
	var ch []Change
	seen := map[string]bool{}
	n := 0
	for _, a := range after {
		seen[a.Scenario] = true
		b, ok := prev[a.Scenario]
		if ok && (b.Verdict == "skip" || a.Verdict == "skip") {
			continue
		}
		if ok {
			n++
		}
		if ok && b.Verdict == a.Verdict && b.Observed == a.Observed {
			continue
		}
		ch = append(ch, Change{Scenario: a.Scenario, Before: b, After: a})
	}
	for _, b := range before {
		if !seen[b.Scenario] {
			ch = append(ch, Change{Scenario: b.Scenario, Before: b})
		}
	}
	return ch, n
}

// Print writes the report for people.
func (r Report) Print(w io.Writer) {
	fmt.Fprintf(w, "\n%s against %s on real: %d scenarios ran in both, %d changed\n", r.Build.label(), r.Against, r.Compared, len(r.Changed))
	wd := max(len(r.Against), len(r.Build.Name)) + 1
	for _, c := range r.Changed {
		fmt.Fprintf(w, "  %s\n    %-*s %s\n    %-*s %s\n", c.Scenario, wd, r.Against+":", cell(c.Before), wd, r.Build.Name+":", cell(c.After))
		if why := c.After.Reason; why != "" && (c.After.Verdict == "fail" || c.After.Verdict == "error") {
			fmt.Fprintf(w, "    %-*s %s\n", wd, "why:", why)
		}
	}
	if s := r.Sample; s.Seeds > 0 {
		fmt.Fprintf(w, "differential sample: %d seeds, real ran %d: %d divergences, %d violations, %d errors\n",
			s.Seeds, s.Ran, s.Divergences, s.Violations, s.Errors)
	}
}

func cell(o Outcome) string {
	if o.Verdict == "" {
		return "(not run)"
	}
	return o.Verdict + "  " + o.Observed
}
