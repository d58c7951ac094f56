package onboard

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// fakeDeps records what Onboard asked for and answers from tables: no
// network, no processes.
type fakeDeps struct {
	calls      []string
	catalogs   map[string][]Outcome // by build name
	installErr map[string]error
	sample     Sample
}

func (f *fakeDeps) Install(_ context.Context, b Build) error {
	f.calls = append(f.calls, "install "+b.Name+" as "+b.Derives+" wheel="+b.Wheel)
	return f.installErr[b.Name]
}

func (f *fakeDeps) Catalog(_ context.Context, b Build) ([]Outcome, error) {
	side := ""
	if b.RealSGLang {
		side = " sglang=real" + b.SGLangCheckout
	}
	f.calls = append(f.calls, "catalog "+b.Name+" as "+b.Derives+side)
	return f.catalogs[b.Name], nil
}

func (f *fakeDeps) Explore(_ context.Context, b Build, seeds int) (Sample, error) {
	f.calls = append(f.calls, "explore "+b.Name+" as "+b.Derives)
	s := f.sample
	s.Seeds = seeds
	return s, nil
}

func TestResolve(t *testing.T) {
	prev := mooncake.Versions[len(mooncake.Versions)-2]
	for _, tc := range []struct {
		in      Build
		want    Build
		wantErr string
	}{
		{in: Build{Name: "0.3.14"}, want: Build{Name: "0.3.14", Derives: "0.3.14"}},
		{in: Build{Name: "v0.3.13.post1"}, want: Build{Name: "0.3.13.post1", Derives: "0.3.13.post1"}},
		{in: Build{Name: "0.3.15"}, want: Build{Name: "0.3.15", Derives: mooncake.Latest}},
		{in: Build{Name: "0.3.15", Package: "mooncake-transfer-engine-cuda13"}, want: Build{Name: "0.3.15", Derives: mooncake.Latest, Package: "mooncake-transfer-engine-cuda13"}},
		{in: Build{Name: "mybranch", Wheel: "/w/x.whl", Derives: prev}, want: Build{Name: "mybranch", Wheel: "/w/x.whl", Derives: prev}},
		{in: Build{Name: "mybranch", Wheel: "/w/x.whl"}, wantErr: "needs --derives RELEASE"},
		{in: Build{Name: "mybranch", Derives: "0.3.14"}, wantErr: "needs --wheel PATH"},
		{in: Build{Name: "mybranch", Wheel: "/w/x.whl", Derives: "0.3.99"}, wantErr: `unknown Mooncake version "0.3.99"`},
		{in: Build{Name: "0.3.14", Wheel: "/w/x.whl"}, wantErr: "give a build of your own a name of its own"},
		{in: Build{Name: "0.3.14", Derives: prev}, wantErr: "derives from itself"},
		{in: Build{Name: "../etc"}, wantErr: "a name is 1–64 letters"},
		{in: Build{Name: "sglbranch", SGLangCheckout: "/src/sglang", Derives: "0.3.14"}, want: Build{Name: "sglbranch", SGLangCheckout: "/src/sglang", Derives: "0.3.14", RealSGLang: true}},
		{in: Build{Name: "sglbranch", SGLangCheckout: "/src/sglang", Derives: "0.3.14", Wheel: "/w/x.whl"}, wantErr: "give no --wheel or --package"},
		{in: Build{Name: "0.3.14", SGLangCheckout: "/src/sglang"}, wantErr: "runs under a name of its own"},
	} {
		got, err := Resolve(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Resolve(%+v) = %v, want error containing %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Resolve(%+v) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func TestDiff(t *testing.T) {
	before := []Outcome{
		{"a", "pass", "setup=-1", ""}, {"b", "pass", "setup=0", ""}, {"c", "skip", "", ""}, {"gone", "pass", "setup=0", ""}, {"d", "fail", "x", ""},
		{"e", "pass", "setup=0", ""},
	}
	after := []Outcome{
		{"a", "pass", "setup=-1", ""}, {"b", "fail", "setup=-600", ""}, {"c", "skip", "", ""}, {"new", "pass", "setup=0", ""}, {"d", "fail", "y", ""},
		{"e", "skip", "", ""},
	}
	ch, n := Diff(before, after)
	want := []Change{
		{Scenario: "b", Before: before[1], After: after[1]},
		{Scenario: "new", After: after[3]},
		{Scenario: "d", Before: before[4], After: after[4]},
		{Scenario: "gone", Before: before[3]},
	}
	if !reflect.DeepEqual(ch, want) || n != 3 {
		t.Errorf("Diff = %+v, %d; want %+v, 3", ch, n, want)
	}
}

func TestOnboardRelease(t *testing.T) {
	prev := mooncake.Versions[len(mooncake.Versions)-2]
	f := &fakeDeps{catalogs: map[string][]Outcome{
		prev:            {{"setup/x", "pass", "setup=-1", ""}, {"setup/y", "pass", "setup=0", ""}},
		mooncake.Latest: {{"setup/x", "pass", "setup=-1", ""}, {"setup/y", "fail", "setup=-800", "expected setup -1"}},
	}, sample: Sample{Ran: 4, Divergences: 1}}
	var log bytes.Buffer
	rep, err := Onboard(context.Background(), f, Build{Name: mooncake.Latest}, Options{Seeds: 5, Out: &log})
	if err != nil {
		t.Fatal(err)
	}
	wantCalls := []string{
		"install " + prev + " as " + prev + " wheel=",
		"install " + mooncake.Latest + " as " + mooncake.Latest + " wheel=",
		"catalog " + prev + " as " + prev,
		"catalog " + mooncake.Latest + " as " + mooncake.Latest,
		"explore " + mooncake.Latest + " as " + mooncake.Latest,
	}
	if !reflect.DeepEqual(f.calls, wantCalls) {
		t.Errorf("calls %q, want %q", f.calls, wantCalls)
	}
	if rep.Against != prev || rep.Compared != 2 || len(rep.Changed) != 1 || rep.Changed[0].Scenario != "setup/y" ||
		rep.Sample != (Sample{Seeds: 5, Ran: 4, Divergences: 1}) {
		t.Errorf("report %+v", rep)
	}
	var w bytes.Buffer
	rep.Print(&w)
	want := "\n" + mooncake.Latest + " against " + prev + " on real: 2 scenarios ran in both, 1 changed\n" +
		"  setup/y\n    " + pad(prev+":") + " pass  setup=0\n    " + pad(mooncake.Latest+":") + " fail  setup=-800\n" +
		"    " + pad("why:") + " expected setup -1\n" +
		"differential sample: 5 seeds, real ran 4: 1 divergences, 0 violations, 0 errors\n"
	if w.String() != want {
		t.Errorf("Print:\n%s\nwant:\n%s", w.String(), want)
	}
}

// pad pads to Print's label width: the longer version name and a colon.
func pad(s string) string {
	for len(s) < max(len(mooncake.Latest), len(mooncake.Versions[len(mooncake.Versions)-2]))+1 {
		s += " "
	}
	return s
}

func TestOnboardBuild(t *testing.T) {
	f := &fakeDeps{catalogs: map[string][]Outcome{
		"0.3.14":   {{"setup/x", "pass", "setup=-1", ""}},
		"mybranch": {{"setup/x", "pass", "setup=-1", ""}},
	}}
	rep, err := Onboard(context.Background(), f, Build{Name: "mybranch", Wheel: "/w/mc.whl", Derives: "0.3.14"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantCalls := []string{
		"install 0.3.14 as 0.3.14 wheel=",
		"install mybranch as 0.3.14 wheel=/w/mc.whl",
		"catalog 0.3.14 as 0.3.14",
		"catalog mybranch as 0.3.14",
	}
	if !reflect.DeepEqual(f.calls, wantCalls) || rep.Against != "0.3.14" || len(rep.Changed) != 0 || rep.Compared != 1 {
		t.Errorf("calls %q, report %+v", f.calls, rep)
	}
}

func TestOnboardInstallFails(t *testing.T) {
	f := &fakeDeps{installErr: map[string]error{"mybranch": errors.New("no such wheel")}}
	_, err := Onboard(context.Background(), f, Build{Name: "mybranch", Wheel: "/nope.whl", Derives: "0.3.14"}, Options{})
	if err == nil || err.Error() != "versions add mybranch: install: no such wheel" {
		t.Fatalf("err = %v", err)
	}
	if len(f.calls) != 2 {
		t.Errorf("ran on after a failed install: %q", f.calls)
	}
}

func TestOnboardSGLangCheckout(t *testing.T) {
	f := &fakeDeps{catalogs: map[string][]Outcome{
		"0.3.14":    {{"io/happy-path", "pass", "setup=0", ""}},
		"sglbranch": {{"io/happy-path", "fail", "setup=0", ""}},
	}}
	var log bytes.Buffer
	rep, err := Onboard(context.Background(), f, Build{Name: "sglbranch", SGLangCheckout: "/src/sglang", Derives: "0.3.14"}, Options{Seeds: 4, Out: &log})
	if err != nil {
		t.Fatal(err)
	}
	wantCalls := []string{
		"install 0.3.14 as 0.3.14 wheel=",
		"catalog 0.3.14 as 0.3.14 sglang=real",
		"catalog sglbranch as 0.3.14 sglang=real/src/sglang",
	}
	if !reflect.DeepEqual(f.calls, wantCalls) || len(rep.Changed) != 1 || rep.Sample != (Sample{}) {
		t.Errorf("calls %q, report %+v", f.calls, rep)
	}
	if !strings.Contains(log.String(), "no differential sample: explore plays SGLang with the Go model") {
		t.Errorf("log %q", log.String())
	}
}
