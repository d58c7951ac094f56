package engine

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
)

// Known are the engine names, in the order of lists and defaults: the
// model before the systems it models. The scenario schema's engines enum
// is this list, so a catalog loads whichever engines a binary links; each
// engine package registers its constructor under its name (Register).
// Nothing else in faultlab spells an engine's name.
var Known = []string{"sim", "fake", "real"}

// Registration is one engine as the CLI and the suites build it. Each
// engine package registers itself in init.
type Registration struct {
	// Name is the CLI name (--engine), the scenario's engines: value and
	// Engine.Name(); one of Known.
	Name string
	// Doc is one line for help texts.
	Doc string
	// New builds the engine; whether it can run here is Available's answer.
	New func(log *slog.Logger) Engine
	// Reference: the engine runs the real system, so comparisons measure
	// the other engines against it (e.g. phase timings).
	Reference bool
}

var (
	regMu sync.RWMutex
	reg   = map[string]Registration{}
)

// Register adds an engine; called from the engine package's init. A
// duplicate name is a programming error.
func Register(r Registration) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := reg[r.Name]; dup {
		panic(fmt.Sprintf("engine: %q registered twice", r.Name))
	}
	if !slices.Contains(Known, r.Name) {
		panic(fmt.Sprintf("engine: %q is not in engine.Known", r.Name))
	}
	reg[r.Name] = r
}

// Registered lists the engines linked into this binary, in Known's order.
func Registered() []Registration {
	regMu.RLock()
	defer regMu.RUnlock()
	var out []Registration
	for _, n := range Known {
		if r, ok := reg[n]; ok {
			out = append(out, r)
		}
	}
	return out
}

// Names lists every known engine name (Known), linked or not.
func Names() []string { return slices.Clone(Known) }

// Lookup returns a registered engine.
func Lookup(name string) (Registration, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	r, ok := reg[name]
	return r, ok
}

// IsReference reports whether the named engine is a registered reference
// (Registration.Reference).
func IsReference(name string) bool {
	r, ok := Lookup(name)
	return ok && r.Reference
}

// Build parses a comma-separated list of engine names ("sim,fake") and
// constructs each once, in the list's order, or fails naming the valid
// engines before anything runs.
func Build(list string, log *slog.Logger) ([]Engine, error) {
	var out []Engine
	seen := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		r, ok := Lookup(n)
		if !ok && slices.Contains(Known, n) {
			return nil, fmt.Errorf("engine %q is not linked into this program", n)
		}
		if !ok {
			return nil, fmt.Errorf("unknown engine %q: valid engines are %s", n, strings.Join(Names(), ", "))
		}
		out = append(out, r.New(log))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no engine given: valid engines are %s", strings.Join(Names(), ", "))
	}
	return out, nil
}
