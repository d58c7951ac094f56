package mooncake

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// The knob surface: which environment variable names each release's PyPI
// wheel can read on SGLang's path, measured from the wheels themselves
// (knobsurface.txt: every MC_* and MOONCAKE_* text, and every env knob of
// the table, in the store module, engine.so, mooncake_master,
// mooncake_client and http_metadata_server.py; realengine's
// TestKnobSurface checks it against the installed wheels and rewrites it
// with -update). A name a wheel does not contain is not read there,
// whatever the source says: the build left its code out (the S3 backend
// of 0.3.12.post1 and 0.3.14, the Redis plugin after 0.3.4), and
// ParseKnob treats it as unset. A name the wheel contains but the table
// does not hold belongs to an area of KnobAreas, so nothing a release
// reads goes unlisted (docs/KNOBS.md, "The surface").

//go:embed knobsurface.txt
var surfaceText string

// KnobSurfaceFiles are the files of site-packages/mooncake measured: what
// SGLang's process, mooncake_client, mooncake_master and the wheel's HTTP
// metadata server load.
var KnobSurfaceFiles = []string{"store*.so", "_store*.so", "engine.so", "mooncake_master", "mooncake_client", "http_metadata_server.py"}

type surface struct {
	versions []string            // measured, in Versions order
	names    map[string][]string // name → the measured versions whose wheel holds it
}

var parsedSurface = sync.OnceValues(func() (surface, error) { return ParseKnobSurface(surfaceText) })

// ParseKnobSurface reads knobsurface.txt: a "versions:" line naming the
// measured releases in order, then one line a name with the versions that
// hold it as ranges over that list ("0.3.9..0.3.14,0.3.4").
func ParseKnobSurface(text string) (surface, error) {
	s := surface{names: map[string][]string{}}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if f[0] == "versions:" {
			s.versions = f[1:]
			continue
		}
		if len(f) != 2 || s.versions == nil {
			return s, fmt.Errorf("knobsurface.txt:%d: want NAME RANGES after a versions: line, got %q", i+1, line)
		}
		for _, r := range strings.Split(f[1], ",") {
			lo, hi, _ := strings.Cut(r, "..")
			if hi == "" {
				hi = lo
			}
			a, b := slices.Index(s.versions, lo), slices.Index(s.versions, hi)
			if a < 0 || b < a {
				return s, fmt.Errorf("knobsurface.txt:%d: %q is no range of the measured versions", i+1, r)
			}
			s.names[f[0]] = append(s.names[f[0]], s.versions[a:b+1]...)
		}
	}
	return s, nil
}

// FormatKnobSurface is knobsurface.txt for the names each measured
// version's wheel holds (versions in Versions order).
func FormatKnobSurface(byVersion map[string][]string) string {
	var vs []string
	for _, v := range Versions {
		if _, ok := byVersion[v]; ok {
			vs = append(vs, v)
		}
	}
	holders := map[string][]int{}
	for i, v := range vs {
		for _, n := range byVersion[v] {
			holders[n] = append(holders[n], i)
		}
	}
	var b strings.Builder
	b.WriteString("# The environment variable names each release's PyPI wheel holds on SGLang's path\n")
	b.WriteString("# (mooncake/knobsurface.go). Measured; rewrite with: go test ./realengine -run TestKnobSurface -update\n")
	b.WriteString("versions: " + strings.Join(vs, " ") + "\n")
	for _, n := range slices.Sorted(func(yield func(string) bool) {
		for n := range holders {
			if !yield(n) {
				return
			}
		}
	}) {
		var rs []string
		idx := holders[n]
		for i := 0; i < len(idx); {
			j := i
			for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
				j++
			}
			r := vs[idx[i]]
			if j > i {
				r += ".." + vs[idx[j]]
			}
			rs = append(rs, r)
			i = j + 1
		}
		b.WriteString(n + " " + strings.Join(rs, ",") + "\n")
	}
	return b.String()
}

// inWheel reports whether release v's wheel can read k: a knob the
// surface does not decide (not an environment variable, another build's,
// a release not measured) is read wherever its rules say.
func (k Knob) inWheel(v Version) bool {
	s, err := parsedSurface()
	if err != nil || k.Scope != ScopeEnv || k.Build != "" || !slices.Contains(s.versions, v.String()) {
		return true
	}
	return slices.Contains(s.names[k.Name], v.String())
}

// KnobSurface are the names release v's wheel holds, sorted; nil when v
// was not measured.
func KnobSurface(v Version) []string {
	s, err := parsedSurface()
	if err != nil {
		return nil
	}
	var out []string
	for n, vs := range s.names {
		if slices.Contains(vs, v.String()) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// MeasuredSurface are the releases knobsurface.txt measured.
func MeasuredSurface() []string {
	s, _ := parsedSurface()
	return slices.Clone(s.versions)
}

// NotInWheels are the measured releases whose rules read k but whose
// wheel does not hold it (so ParseKnob reads it as unset there).
func (k Knob) NotInWheels() []string {
	var out []string
	for _, v := range MeasuredSurface() {
		ver := MustVersion(v)
		if _, ok := k.RuleAt(ver); ok && !k.inWheel(ver) {
			out = append(out, v)
		}
	}
	return out
}

// KnobArea groups names the wheels hold that the knob table does not: the
// part of Mooncake that reads them, and why the table leaves them out.
type KnobArea struct {
	Prefixes []string // a name belongs to the first area with a prefix of it
	Area     string
	Why      string
}

// AreaOf is the area of an untabled name, or false.
func AreaOf(name string) (KnobArea, bool) {
	for _, a := range KnobAreas {
		for _, p := range a.Prefixes {
			if strings.HasPrefix(name, p) {
				return a, true
			}
		}
	}
	return KnobArea{}, false
}
