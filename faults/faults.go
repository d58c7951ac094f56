// Package faults is the fault vocabulary shared by every engine: typed,
// validated, engine-neutral. What each fault kind and link mode means
// lives with it, one file each (kind_*.go, mode_*.go), registered by name
// in init — toxiproxy's toxics/ is the model. Engines never switch on a
// kind or mode: they ask the registry (see registry.go and
// docs/CONTRIBUTING.md).
package faults

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mooncake-faultlab/faultlab/suggest"
)

// Kind names a fault kind (master-down, link, process...).
type Kind string

// Streams: upstream = node→server, downstream = server→node.
var Streams = []string{"both", "upstream", "downstream"}

// Fault is one scheduled fault as a scenario writes it: the part every
// fault has, and Params, the typed parameters its kind or link mode owns
// (params.go).
type Fault struct {
	// At is when it starts, relative to world start (Mooncake time).
	At time.Duration
	// For is how long it lasts; 0 = until cleared.
	For    time.Duration
	Kind   Kind
	Target string // Link: master|metadata|client|<node>; Process: master|metadata|client
	Mode   string // a registered link mode (LinkModes)
	Action string // Process only
	Stream string // Link only; default both
	// Params is the owner's parameter struct (a value, e.g. LatencyParams):
	// the link mode's for a link fault, else the kind's; nil = none given.
	Params any
	// Line is the scenario file line, for error messages.
	Line int
}

// LinkTarget is the party on the far side of the faulted link; "" for a
// fault that acts on no link (process).
func (f Fault) LinkTarget() string {
	if k, ok := kinds[f.Kind]; ok {
		return k.LinkTarget(f)
	}
	return ""
}

// IsLink reports whether f acts on a link (then Mode is a LinkMode).
func (f Fault) IsLink() bool { return f.LinkTarget() != "" }

// String is a short, stable description used in traces.
func (f Fault) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", f.Kind)
	if f.Target != "" {
		fmt.Fprintf(&b, " target=%s", f.Target)
	}
	if f.Mode != "" {
		fmt.Fprintf(&b, " mode=%s", f.Mode)
	}
	if f.Action != "" {
		fmt.Fprintf(&b, " action=%s", f.Action)
	}
	if f.Stream != "" && f.Stream != "both" {
		fmt.Fprintf(&b, " stream=%s", f.Stream)
	}
	traceParams(&b, f.Params)
	if f.For > 0 {
		fmt.Fprintf(&b, " for=%s", f.For)
	}
	return b.String()
}

// Validate checks the fault against the registry; the error names the
// valid choices.
func (f Fault) Validate() error {
	if f.At < 0 || f.For < 0 {
		return fmt.Errorf("%s: at and for must not be negative", f.Kind)
	}
	k, ok := kinds[f.Kind]
	if !ok {
		return fmt.Errorf("unknown fault kind %q%s: valid kinds are %s", f.Kind, suggest.DidYouMean(string(f.Kind), KindNames()), strings.Join(KindNames(), ", "))
	}
	if err := k.Validate(f); err != nil {
		return err
	}
	return checkParams(f, k.Params(f))
}

// oneOf is the error for a value outside its valid choices.
func oneOf(f Fault, field, v string, valid []string) error {
	if slices.Contains(valid, v) {
		return nil
	}
	return fmt.Errorf("%s %q: %s must be one of %s%s", f.Kind, v, field, strings.Join(valid, ", "), suggest.DidYouMean(v, valid))
}
