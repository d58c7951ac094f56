// Command failures prints the failed specs of a Ginkgo JSON report with
// their failure messages, for the last lines of a CI log: a log that is
// cut to its tail then still says why each spec failed, not only where.
//
//	go run ./suites/failures REPORT.json
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/onsi/ginkgo/v2/types"
)

// maxMessage bounds each message: a verdict reason can quote a whole log.
const maxMessage = 1500

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: failures REPORT.json")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintf(os.Stderr, "failures: %v\n", err)
		os.Exit(2)
	}
}

func run(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var reports []types.Report
	if err := json.Unmarshal(b, &reports); err != nil {
		return fmt.Errorf("%s: not a Ginkgo JSON report: %w", path, err)
	}
	fmt.Print(digest(reports))
	return nil
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
			name := strings.TrimSpace(strings.Join(append(s.ContainerHierarchyTexts, s.LeafNodeText), " "))
			if name == "" {
				name = s.LeafNodeType.String()
			}
			fmt.Fprintf(&sb, "--- %s: %s [%s]\n    at %s\n", s.State, name, strings.Join(s.Labels(), ", "), s.Failure.Location)
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
