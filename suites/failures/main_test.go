package main

import (
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

func TestDigestNamesEachFailureWithItsMessage(t *testing.T) {
	reports := []types.Report{{SpecReports: types.SpecReports{
		{LeafNodeText: "passes", State: types.SpecStatePassed},
		{
			ContainerHierarchyTexts: []string{"catalog on the real engine", "scenario"},
			LeafNodeText:            "register/overlapping-region @0.3.9",
			LeafNodeLabels:          []string{"real", "register"},
			State:                   types.SpecStateFailed,
			Failure: types.Failure{
				Message:  "verdict fail\nreason: warmup put -800",
				Location: types.CodeLocation{FileName: "suites/catalog_test.go", LineNumber: 108},
			},
		},
	}}}
	want := "1 failed spec(s), with their messages:\n" +
		"--- failed: catalog on the real engine scenario register/overlapping-region @0.3.9 [real, register]\n" +
		"    at suites/catalog_test.go:108\n" +
		"    verdict fail\n" +
		"    reason: warmup put -800\n"
	if got := digest(reports); got != want {
		t.Fatalf("digest:\n%s\nwant:\n%s", got, want)
	}
	if got := digest([]types.Report{{}}); got != "no failed specs in the report\n" {
		t.Fatalf("empty digest = %q", got)
	}
}

func TestTimingsListsSlowestSpecsAndLabelTotals(t *testing.T) {
	reports := []types.Report{{SpecReports: types.SpecReports{
		{LeafNodeText: "a", LeafNodeLabels: []string{"real", "x"}, State: types.SpecStatePassed, RunTime: 90 * time.Second},
		{LeafNodeText: "b", LeafNodeLabels: []string{"sim"}, State: types.SpecStatePassed, RunTime: 1500 * time.Millisecond},
		{LeafNodeText: "c", LeafNodeLabels: []string{"real"}, State: types.SpecStateFailed, RunTime: 30 * time.Second},
		{LeafNodeText: "skipped", LeafNodeLabels: []string{"real"}, State: types.SpecStateSkipped},
	}}}
	want := "spec time: 2m2s in 3 specs (summed; specs of concurrent suite processes overlap); the slowest:\n" +
		"     1m30s  a\n" +
		"       30s  c\n" +
		"      1.5s  b\n" +
		"time by label (a spec counts for each of its labels):\n" +
		"      2m0s  real\n" +
		"     1m30s  x\n" +
		"      1.5s  sim\n"
	if got := timings(reports, 3); got != want {
		t.Fatalf("timings:\n%s\nwant:\n%s", got, want)
	}
}
