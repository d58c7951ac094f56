package explain_test

import (
	"context"
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/explain"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// TestDiagnoseCatalogLogs feeds every catalog run's own log (as
// TestEveryScenarioExplainsItsOwnLog does for Explain) to Diagnose, the
// CLI's answer: the scenario must be a cause, first or tied on points
// with the first; field classes must not push it out.
func TestDiagnoseCatalogLogs(t *testing.T) {
	cat, fp := allFingerprints(t)
	n, misses := 0, 0
	for _, sc := range cat {
		if !sc.RunsOn(sim.Name) || sc.HasLabel("container") {
			continue
		}
		for _, r := range scenarios.Run(context.Background(), sc, sim.New(), scenarios.Options{Seed: 1}) {
			if r.Verdict != scenarios.Pass {
				continue
			}
			n++
			d, err := explain.Diagnose(cat, fp, fieldLog(r), r.MooncakeVersion)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(d.Causes, func(c explain.Cause) bool { return c.Name == sc.Name })
			if i < 0 || d.Causes[i].Points < d.Causes[0].Points {
				misses++
				var got []string
				for _, c := range d.Causes[:min(3, len(d.Causes))] {
					got = append(got, c.String())
				}
				t.Errorf("%s @%s: rank %d, causes %v", sc.Name, r.MooncakeVersion, i, got)
			}
		}
	}
	t.Logf("%d catalog runs, %d not first", n, misses)
}
