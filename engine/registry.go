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
// Nothing else in faultlab spells an engine's name: code outside the
// registry and the engine packages asks for a capability (Caps).
var Known = []string{"sim", "fake", "real"}

// Caps are what an engine can do. The CLI, explore and the runner decide
// by capability, so a new engine gets the behaviour its capabilities ask
// for without a switch on its name.
type Caps uint

const (
	// Deterministic: virtual time, a run is a function of scenario and
	// seed and its trace hash is its identity. The first registered one is
	// the model: the CLI's default engine and explore's model.
	Deterministic Caps = 1 << iota
	// Reference: the engine runs the real system, so comparisons measure
	// the other engines against it (e.g. phase timings).
	Reference
	// Containers: Options.Containers puts the world's parties in
	// containers (`run --containers`); it needs a Docker daemon.
	Containers
	// ModelsContainers: Options.Containers models a container world
	// without Docker.
	ModelsContainers
	// RealSGLang: its worlds host SGLang's own code (`run --sglang real`).
	RealSGLang
	// LocalBuild: Options.Build runs a developer's Mooncake build
	// (`run --build`, `faultlab versions add`).
	LocalBuild
)

// Has reports whether c includes every capability of want.
func (c Caps) Has(want Caps) bool { return c&want == want }

var capNames = []string{"Deterministic", "Reference", "Containers", "ModelsContainers", "RealSGLang", "LocalBuild"}

// String names the capabilities, e.g. "Reference+LocalBuild".
func (c Caps) String() string {
	var out []string
	for i, n := range capNames {
		if c&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, "+")
}

// Options select a variant of an engine; each option is honoured only by
// an engine with its capability (the caller checks Caps first).
type Options struct {
	Logger *slog.Logger
	// Containers: the world in containers (Containers) or a modelled
	// container world (ModelsContainers).
	Containers bool
	// Build: an installed developer build by name (LocalBuild).
	Build string
}

// Registration is one engine as the CLI and the suites build it. Each
// engine package registers itself in init.
type Registration struct {
	// Name is the CLI name (--engine), the scenario's engines: value and
	// Engine.Name(); one of Known.
	Name string
	// Doc is one line for help texts.
	Doc string
	// New builds the engine; whether it can run here is Available's answer.
	New func(Options) Engine
	// Caps are what it can do.
	Caps Caps
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

// CapsOf returns the capabilities of a registered engine; none for a name
// nothing registered.
func CapsOf(name string) Caps {
	r, _ := Lookup(name)
	return r.Caps
}

// IsReference reports whether the named engine is a registered reference
// (Caps Reference).
func IsReference(name string) bool { return CapsOf(name).Has(Reference) }

// With lists the registered engines that have every capability of c, in
// Known's order.
func With(c Caps) []Registration {
	var out []Registration
	for _, r := range Registered() {
		if r.Caps.Has(c) {
			out = append(out, r)
		}
	}
	return out
}

// NamesWith lists the names of With(c).
func NamesWith(c Caps) []string {
	var out []string
	for _, r := range With(c) {
		out = append(out, r.Name)
	}
	return out
}

// First returns the first registered engine with every capability of c.
func First(c Caps) (Registration, bool) {
	if rs := With(c); len(rs) > 0 {
		return rs[0], true
	}
	return Registration{}, false
}

// Model names the model: the first registered deterministic engine, or ""
// when none is linked.
func Model() string {
	r, _ := First(Deterministic)
	return r.Name
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
		out = append(out, r.New(Options{Logger: log}))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no engine given: valid engines are %s", strings.Join(Names(), ", "))
	}
	return out, nil
}
