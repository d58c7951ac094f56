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

// Fault is one scheduled fault as a scenario writes it. Which of the
// attribute fields a fault reads is its kind's and mode's Fields.
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
	// Toxic attributes (Link).
	Latency       time.Duration
	Jitter        time.Duration
	RateKBps      int64
	AverageSize   int64
	SizeVariation int64
	Delay         time.Duration
	Bytes         int64
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
	if f.Latency > 0 {
		fmt.Fprintf(&b, " latency=%s", f.Latency)
	}
	if f.Jitter > 0 {
		fmt.Fprintf(&b, " jitter=%s", f.Jitter)
	}
	if f.RateKBps > 0 {
		fmt.Fprintf(&b, " rate=%dKB/s", f.RateKBps)
	}
	if f.Bytes > 0 {
		fmt.Fprintf(&b, " bytes=%d", f.Bytes)
	}
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
	return k.Validate(f)
}

// oneOf is the error for a value outside its valid choices.
func oneOf(f Fault, field, v string, valid []string) error {
	if slices.Contains(valid, v) {
		return nil
	}
	return fmt.Errorf("%s %q: %s must be one of %s%s", f.Kind, v, field, strings.Join(valid, ", "), suggest.DidYouMean(v, valid))
}
