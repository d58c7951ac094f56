// Package faults is the fault vocabulary shared by every engine: typed,
// validated, engine-neutral. Each engine injects them its own way (sim:
// events in the model; fake/real: toxiproxy, processes, containers).
package faults

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Kind names a fault.
type Kind string

const (
	// MasterDown: the node→master link is down. Mode refuse (connection
	// refused: master not running) or blackhole (packets dropped: wrong
	// address, firewall).
	MasterDown Kind = "master-down"
	// MetadataDown: the node→metadata (HTTP) link is down; modes as MasterDown.
	MetadataDown Kind = "metadata-down"
	// ClientDown: the dummy→mooncake_client link is down; modes as MasterDown.
	ClientDown Kind = "client-down"
	// Link: a toxic on the link from a node to Target (master, metadata,
	// client or another node's name).
	Link Kind = "link"
	// Process: an action on a server process (Target master, metadata or
	// client): stop, start, restart (state lost), pause, resume.
	Process Kind = "process"
)

// Kinds lists every fault kind, for error messages and docs.
var Kinds = []Kind{MasterDown, MetadataDown, ClientDown, Link, Process}

// Link modes (toxiproxy names where toxiproxy has one).
const (
	ModeRefuse    = "refuse"    // proxy disabled: ECONNREFUSED
	ModeBlackhole = "blackhole" // timeout toxic with timeout 0: silence
	ModeResetPeer = "reset_peer"
	ModeLatency   = "latency"
	ModeBandwidth = "bandwidth"
	ModeSlicer    = "slicer"
	ModeLimitData = "limit_data"
)

// LinkModes are the modes of a Link fault.
var LinkModes = []string{ModeRefuse, ModeBlackhole, ModeResetPeer, ModeLatency, ModeBandwidth, ModeSlicer, ModeLimitData}

// DownModes are the modes of MasterDown, MetadataDown and ClientDown.
var DownModes = []string{ModeRefuse, ModeBlackhole}

// Process actions.
var Actions = []string{"stop", "start", "restart", "pause", "resume"}

// Process targets.
var ProcessTargets = []string{"master", "metadata", "client"}

// Streams: upstream = node→server, downstream = server→node.
var Streams = []string{"both", "upstream", "downstream"}

// Fault is one scheduled fault.
type Fault struct {
	// At is when it starts, relative to world start.
	At time.Duration
	// For is how long it lasts; 0 = until cleared.
	For    time.Duration
	Kind   Kind
	Target string // Link: master|metadata|client|<node>; Process: master|metadata|client
	Mode   string // see LinkModes / DownModes
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

// LinkTarget is the party on the far side of the faulted link, for the
// kinds that name a link.
func (f Fault) LinkTarget() string {
	switch f.Kind {
	case MasterDown:
		return "master"
	case MetadataDown:
		return "metadata"
	case ClientDown:
		return "client"
	}
	return f.Target
}

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

// Validate checks the fault against the vocabulary; the error names the
// valid choices.
func (f Fault) Validate() error {
	oneOf := func(field, v string, valid []string) error {
		if slices.Contains(valid, v) {
			return nil
		}
		return fmt.Errorf("%s %q: %s must be one of %s", f.Kind, v, field, strings.Join(valid, ", "))
	}
	if f.At < 0 || f.For < 0 {
		return fmt.Errorf("%s: at and for must not be negative", f.Kind)
	}
	switch f.Kind {
	case MasterDown, MetadataDown, ClientDown:
		if f.Target != "" {
			return fmt.Errorf("%s: has no target (the link is implied); use kind link for other links", f.Kind)
		}
		return oneOf("mode", f.Mode, DownModes)
	case Link:
		if f.Target == "" {
			return fmt.Errorf("link: target is required (master, metadata, client or a node name)")
		}
		if err := oneOf("mode", f.Mode, LinkModes); err != nil {
			return err
		}
		if f.Stream != "" {
			if err := oneOf("stream", f.Stream, Streams); err != nil {
				return err
			}
			if f.Mode == ModeRefuse && f.Stream != "both" {
				// toxiproxy refuses by disabling the proxy: both directions.
				return fmt.Errorf("link refuse: refuse cannot be one-way (stream %s); use stream both, or blackhole for a one-way cut", f.Stream)
			}
		}
		switch f.Mode {
		case ModeLatency:
			if f.Latency <= 0 {
				return fmt.Errorf("link latency: latency must be > 0")
			}
		case ModeBandwidth:
			if f.RateKBps <= 0 {
				return fmt.Errorf("link bandwidth: rate_kbps must be > 0")
			}
		case ModeLimitData:
			if f.Bytes <= 0 {
				return fmt.Errorf("link limit_data: bytes must be > 0")
			}
		case ModeSlicer:
			if f.AverageSize <= 0 {
				return fmt.Errorf("link slicer: average_size must be > 0")
			}
		}
		return nil
	case Process:
		if err := oneOf("target", f.Target, ProcessTargets); err != nil {
			return err
		}
		return oneOf("action", f.Action, Actions)
	}
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = string(k)
	}
	return fmt.Errorf("unknown fault kind %q: valid kinds are %s", f.Kind, strings.Join(names, ", "))
}
