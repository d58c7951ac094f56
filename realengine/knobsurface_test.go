package realengine_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/realengine"
)

var updateSurface = flag.Bool("update", false, "rewrite mooncake/knobsurface.txt from the installed wheels")

// The knob surface (mooncake/knobsurface.txt) is what the installed wheels
// hold: every measured release's names, no more, no fewer.
func TestKnobSurface(t *testing.T) {
	got := map[string][]string{}
	for _, v := range mooncake.Versions {
		l, err := realengine.LayoutFor("", v)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.ReadInstalled(); err != nil {
			continue
		}
		dir, err := l.PackageDir()
		if err != nil {
			t.Fatal(err)
		}
		names, err := wheelNames(dir)
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		got[v] = names
	}
	if len(got) == 0 {
		t.Skip("no Mooncake wheel installed (faultlab install real)")
	}
	if *updateSurface {
		if err := os.WriteFile("../mooncake/knobsurface.txt", []byte(mooncake.FormatKnobSurface(got)), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	measured := mooncake.MeasuredSurface()
	for v, names := range got {
		if !slices.Contains(measured, v) {
			t.Errorf("Mooncake %s is installed but not in mooncake/knobsurface.txt: go test ./realengine -run TestKnobSurface -update", v)
			continue
		}
		want := mooncake.KnobSurface(mooncake.MustVersion(v))
		for _, n := range names {
			if !slices.Contains(want, n) {
				t.Errorf("Mooncake %s's wheel holds %s; knobsurface.txt does not say so", v, n)
			}
		}
		for _, n := range want {
			if !slices.Contains(names, n) {
				t.Errorf("knobsurface.txt says Mooncake %s's wheel holds %s; it does not", v, n)
			}
		}
	}
	for _, v := range measured {
		if _, ok := got[v]; !ok {
			t.Logf("Mooncake %s is measured but not installed here: not checked", v)
		}
	}
}

// nameRE is an environment variable name of Mooncake's; the texts of
// .rodata are packed, so a name can run into the next text's capitals
// (wheelNames drops those).
var nameRE = regexp.MustCompile(`(?:MC|MOONCAKE)_[A-Z0-9_]*[A-Z0-9]`)

// wheelNames are the MC_*/MOONCAKE_* texts, and the env knobs of the table
// by their whole name (WITH_NVIDIA_PEERMEM), in the wheel's surface files.
func wheelNames(dir string) ([]string, error) {
	var blob []byte
	for _, pat := range mooncake.KnobSurfaceFiles {
		files, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			blob = append(append(blob, b...), 0)
		}
	}
	found := map[string]bool{}
	for _, m := range nameRE.FindAll(blob, -1) {
		found[string(m)] = true
	}
	for _, k := range mooncake.Knobs {
		if k.Scope == mooncake.ScopeEnv && bytes.Contains(blob, []byte(k.Name)) {
			found[k.Name] = true
		}
	}
	var names []string
	for n := range found {
		if !glued(n, found) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names, nil
}

// glued: n is another name with one or two capitals of the next packed
// text after it (MOONCAKE_DFS_ENABLEDE).
func glued(n string, found map[string]bool) bool {
	for cut := 1; cut <= 2 && cut < len(n); cut++ {
		if found[n[:len(n)-cut]] {
			return true
		}
	}
	return false
}
