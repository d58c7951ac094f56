// Command failures prints, for the last lines of a CI log, where a suite
// run's time went (the slowest specs and each label's total) and the
// failed specs with their failure messages: a log cut to its tail then
// still says why each spec failed, not only where.
//
//	go run ./suites/failures REPORT.json [REPORT.json ...]
//
// Several reports (suites run as concurrent processes) are read as one run.
package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

// slowest is how many specs the time table lists.
const slowest = 12

// maxMessage bounds each message: a verdict reason can quote a whole log.
const maxMessage = 1500

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: failures REPORT.json [REPORT.json ...]")
		os.Exit(2)
	}
	if err := run(os.Args[1:]...); err != nil {
		fmt.Fprintf(os.Stderr, "failures: %v\n", err)
		os.Exit(2)
	}
}

func run(paths ...string) error {
	var reports []types.Report
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var rs []types.Report
		if err := json.Unmarshal(b, &rs); err != nil {
			return fmt.Errorf("%s: not a Ginkgo JSON report: %w", path, err)
		}
		reports = append(reports, rs...)
	}
	fmt.Print(timings(reports, slowest))
	if failed(reports) {
		fmt.Print(digest(reports))
	}
	return nil
}

func failed(reports []types.Report) bool {
	for _, r := range reports {
		for _, s := range r.SpecReports {
			if s.State.Is(types.SpecStateFailureStates) {
				return true
			}
		}
	}
	return false
}

func specName(s types.SpecReport) string {
	name := strings.TrimSpace(strings.Join(append(s.ContainerHierarchyTexts, s.LeafNodeText), " "))
	if name == "" {
		name = s.LeafNodeType.String()
	}
	return name
}

// timings is the n slowest specs that ran, then each label's total (a
// spec counts towards each of its labels), slowest first.
func timings(reports []types.Report, n int) string {
	var ran types.SpecReports
	var total time.Duration
	byLabel := map[string]time.Duration{}
	for _, r := range reports {
		for _, s := range r.SpecReports {
			if s.State.Is(types.SpecStateSkipped|types.SpecStatePending) || s.RunTime == 0 {
				continue
			}
			ran = append(ran, s)
			total += s.RunTime
			for _, l := range s.Labels() {
				byLabel[l] += s.RunTime
			}
		}
	}
	slices.SortStableFunc(ran, func(a, b types.SpecReport) int { return cmp.Compare(b.RunTime, a.RunTime) })
	var sb strings.Builder
	fmt.Fprintf(&sb, "spec time: %s in %d specs (summed; specs of concurrent suite processes overlap); the slowest:\n", total.Round(time.Second), len(ran))
	for _, s := range ran[:min(n, len(ran))] {
		fmt.Fprintf(&sb, "  %8s  %s\n", s.RunTime.Round(100*time.Millisecond), specName(s))
	}
	labels := make([]string, 0, len(byLabel))
	for l := range byLabel {
		labels = append(labels, l)
	}
	slices.SortFunc(labels, func(a, b string) int { return cmp.Or(cmp.Compare(byLabel[b], byLabel[a]), cmp.Compare(a, b)) })
	sb.WriteString("time by label (a spec counts for each of its labels):\n")
	for _, l := range labels {
		fmt.Fprintf(&sb, "  %8s  %s\n", byLabel[l].Round(100*time.Millisecond), l)
	}
	return sb.String()
}

// digest is one block per failed spec (the suite's own failure too).
func digest(reports []types.Report) string {
	var sb strings.Builder
	n := 0
	for _, r := range reports {
		for _, s := range r.SpecReports {
			if !s.State.Is(types.SpecStateFailureStates) {
				continue
			}
			n++
			fmt.Fprintf(&sb, "--- %s: %s [%s]\n    at %s\n", s.State, specName(s), strings.Join(s.Labels(), ", "), s.Failure.Location)
			msg := strings.TrimSpace(s.Failure.Message)
			if len(msg) > maxMessage {
				msg = msg[:maxMessage] + " …"
			}
			for _, line := range strings.Split(msg, "\n") {
				fmt.Fprintf(&sb, "    %s\n", line)
			}
		}
	}
	if n == 0 {
		return "no failed specs in the report\n"
	}
	return fmt.Sprintf("%d failed spec(s), with their messages:\n%s", n, sb.String())
}
