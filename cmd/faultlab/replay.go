package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/spf13/cobra"
)

func replayCmd() *cobra.Command {
	var reportPath, name, engineName, version, catalogDir string
	var timeoutScale float64
	cmd := &cobra.Command{
		Use:   "replay --report FILE --scenario NAME",
		Short: "Re-run one result of a report by its seed and print the trace as a timeline",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			data, err := os.ReadFile(reportPath)
			if err != nil {
				return fmt.Errorf("read report: %w", err)
			}
			var rep scenarios.Report
			if err := json.Unmarshal(data, &rep); err != nil {
				return fmt.Errorf("parse report %s: %w", reportPath, err)
			}
			var want *scenarios.Result
			for i, r := range rep.Results {
				if r.Scenario == name && (engineName == "" || r.Engine == engineName) && (version == "" || r.MooncakeVersion == version) {
					want = &rep.Results[i]
					break
				}
			}
			if want == nil {
				return fmt.Errorf("report %s has no result for scenario %q (engine %q, version %q)", reportPath, name, engineName, version)
			}
			if want.Verdict == scenarios.Skip {
				return fmt.Errorf("%s @%s on %s was skipped (%s): nothing to replay", want.Scenario, want.MooncakeVersion, want.Engine, want.Reason)
			}
			sc, err := findScenario(want, catalogDir)
			if err != nil {
				return err
			}
			engs, err := buildEngines(want.Engine, logger(false))
			if err != nil {
				return err
			}
			opts := scenarios.Options{Seed: want.Seed, TimeoutScale: timeoutScale}
			got := scenarios.RunVersion(cmd.Context(), sc, engs[0], want.MooncakeVersion, opts)
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "replay %s @%s on %s, seed %d: %s", got.Scenario, got.MooncakeVersion, got.Engine, got.Seed, got.Verdict)
			if got.Reason != "" {
				fmt.Fprintf(out, " (%s)", got.Reason)
			}
			fmt.Fprintln(out)
			printTimeline(out, got)
			if got.TraceHash == want.TraceHash {
				fmt.Fprintf(out, "\ntrace hash matches the report: %s\n", got.TraceHash)
				return nil
			}
			fmt.Fprintf(out, "\ntrace hash DIFFERS: report %s, replay %s\n", want.TraceHash, got.TraceHash)
			return errVerdict
		},
	}
	cmd.Flags().StringVar(&reportPath, "report", "", "JSON report written by `faultlab run --report`")
	cmd.Flags().StringVar(&name, "scenario", "", "scenario name in the report")
	cmd.Flags().StringVar(&engineName, "engine", "", "which engine's result (default: the first for the scenario)")
	cmd.Flags().StringVar(&version, "mooncake-version", "", "which version's result (default: the first for the scenario)")
	cmd.Flags().StringVar(&catalogDir, "catalog", "", "load the catalog from this directory instead of the built-in one")
	cmd.Flags().Float64Var(&timeoutScale, "timeout-scale", 0.05, "wall-clock engines: timeout scale (as for run)")
	_ = cmd.MarkFlagRequired("report")
	_ = cmd.MarkFlagRequired("scenario")
	return cmd
}

// findScenario prefers the file the report names, then the catalog.
func findScenario(r *scenarios.Result, dir string) (*scenarios.Scenario, error) {
	if r.Source != "" {
		if _, err := os.Stat(r.Source); err == nil {
			sc, err := scenarios.Load(r.Source)
			if err == nil && sc.Name == r.Scenario {
				return sc, nil
			}
		}
	}
	cf := catalogFlags{dir: dir}
	catalog, err := cf.load()
	if err != nil {
		return nil, err
	}
	scs, err := scenarios.Resolve(catalog, []string{r.Scenario})
	if err != nil {
		return nil, err
	}
	return scs[0], nil
}

func printTimeline(w io.Writer, r scenarios.Result) {
	if r.Trace == nil {
		return
	}
	for _, e := range r.Trace.Events() {
		lvl := e.Level
		if lvl == "" {
			lvl = e.Kind
		}
		fmt.Fprintf(w, "%12s  %-14s %-7s %s\n", fmtAt(e.At), e.Source, lvl, e.Text)
	}
}

func fmtAt(d time.Duration) string { return fmt.Sprintf("%.3fs", d.Seconds()) }
