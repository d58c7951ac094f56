package explain_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/explain"
	"github.com/mooncake-faultlab/faultlab/fieldlogs"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// FuzzDiagnose: whatever is pasted, explain answers without panicking
// and its answer is consistent (causes at or above the threshold, nearest
// below it).
func FuzzDiagnose(f *testing.F) {
	cs, err := fieldlogs.Load()
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range cs {
		f.Add(c.Log)
	}
	f.Add("")
	f.Add("\x00\xff[2026-01-01 00:00:00 TP0]\nE0101 99:99:99.999999 1 x.cpp:1]\n")
	f.Add(strings.Repeat("E0101 00:00:00.000000 1 a.cpp:1] Failed ", 1000))
	cat, fp := allFingerprints(f)
	f.Fuzz(func(t *testing.T, log string) {
		d, err := explain.Diagnose(cat, fp, log, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range d.Causes {
			if c.Points < d.Threshold {
				t.Fatalf("cause %s below the threshold", c)
			}
		}
		for _, c := range d.Nearest {
			// Only a log that does not tell two causes apart, or one of
			// INFO lines only, leaves one at the threshold among the
			// nearest.
			if c.Points >= d.Threshold && d.Ambiguous == "" && !strings.HasPrefix(d.Advice, "the log has INFO lines only") {
				t.Fatalf("nearest %s at or above the threshold", c)
			}
		}
		if (d.Verdict == "cause") != (len(d.Causes) > 0) {
			t.Fatalf("verdict %s with %d causes", d.Verdict, len(d.Causes))
		}
	})
}

// FuzzDraftFromLog: whatever is pasted, new --from-log answers without
// panicking, and a draft it writes for a log that shows an error checks
// that error (an exception, a death or a line; never ok).
func FuzzDraftFromLog(f *testing.F) {
	cs, err := fieldlogs.Load()
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range cs {
		f.Add(c.Log)
	}
	f.Add("Unable to find metadata storage plugin  with conn string: \n*** Check failure stack trace: ***\n")
	f.Add("Failed to register memory : [\nSocketHandShakePlugin: failed to get IP address of peer server , check DNS and /etc/hosts, or use IPv4 address instead\n")
	cat, fp := allFingerprints(f)
	f.Fuzz(func(t *testing.T, log string) {
		dr := explain.DraftFromLog(context.Background(), cat, fp, sim.New(), log, explain.DraftOptions{Name: "field/fuzz"})
		if !dr.Written() {
			if len(dr.Missing) == 0 {
				t.Fatal("nothing written and no reason")
			}
			return
		}
		sc, err := scenarios.Parse("fuzz.yaml", dr.YAML)
		if err != nil {
			t.Fatalf("the draft does not load: %v\n%s", err, dr.YAML)
		}
		if explain.ShowsError(log, explain.ParseLog(log)) && !explain.ExpectsFailure(sc.Expect) {
			t.Fatalf("a green draft for a log that shows an error:\n%s", dr.YAML)
		}
	})
}
