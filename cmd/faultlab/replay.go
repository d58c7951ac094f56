package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/spf13/cobra"
)

func replayCmd() *cobra.Command {
	var reportPath, name, engineName, version, catalogDir, timelinePath string
	var timeoutScale float64
	cmd := &cobra.Command{
		Use:   "replay --report FILE --scenario NAME",
		Short: "Re-run one result of a report with the report's settings and compare",
		Long: `Re-run one result of a report by its seed, with the settings the report
records (timeout scale, slow), print its trace as a timeline and compare:
on sim the trace hash must match; on wall-clock engines (fake, real) traces
are not reproducible, so verdict, return codes, exception and death are
compared instead, and the output says so.

` + replayExitHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			data, err := os.ReadFile(reportPath)
			if err != nil {
				return usageErr(fmt.Errorf("read report: %w", err))
			}
			var rep scenarios.Report
			if err := json.Unmarshal(data, &rep); err != nil {
				return usageErr(fmt.Errorf("parse report %s: %w", reportPath, err))
			}
			var want *scenarios.Result
			for i, r := range rep.Results {
				if r.Scenario == name && (engineName == "" || r.Engine == engineName) && (version == "" || r.MooncakeVersion == version) {
					want = &rep.Results[i]
					break
				}
			}
			if want == nil {
				var names, has []string
				for _, r := range rep.Results {
					if !slices.Contains(names, r.Scenario) {
						names = append(names, r.Scenario)
					}
					if r.Scenario == name {
						has = append(has, r.Engine+" @"+r.MooncakeVersion)
					}
				}
				if len(has) > 0 { // the scenario is there, on other engines or at other versions
					which := ""
					if engineName != "" {
						which += " on " + engineName
					}
					if version != "" {
						which += " @" + version
					}
					return usageErr(fmt.Errorf("report %s has no result for %s%s; it has %s", reportPath, name, which, strings.Join(has, ", ")))
				}
				return usageErr(fmt.Errorf("report %s has no result for scenario %q%s", reportPath, name, suggestion(name, names)))
			}
			if want.Verdict == scenarios.Skip {
				return silentMsg(cmd.OutOrStdout(), exitNothing, "%s @%s on %s was skipped (%s): nothing to replay", want.Scenario, want.MooncakeVersion, want.Engine, want.Reason)
			}
			sc, err := findScenario(want, catalogDir)
			if err != nil {
				return usageErr(err)
			}
			engs, err := buildEngines(want.Engine, logger(false))
			if err != nil {
				return usageErr(err)
			}
			// The report's settings, unless a flag overrides them.
			opts := scenarios.Options{Seed: want.Seed, TimeoutScale: timeoutScale}
			if !cmd.Flags().Changed("timeout-scale") {
				opts.TimeoutScale = defaultTimeoutScale // a report without its settings
				if ri := rep.Run; ri != nil && ri.TimeoutScale > 0 {
					opts.TimeoutScale = ri.TimeoutScale
				}
			}
			if ri := rep.Run; ri != nil {
				opts.Slow = ri.Slow
			}
			if !(opts.TimeoutScale > 0 && opts.TimeoutScale <= 1) {
				return usageErr(fmt.Errorf("--timeout-scale %g: want 0 < s <= 1", opts.TimeoutScale))
			}
			ctx, stop := interruptContext(cmd.Context())
			defer stop()
			got := scenarios.RunVersion(ctx, sc, engs[0], want.MooncakeVersion, opts)
			out := cmd.OutOrStdout()
			eo := scenarios.OptionsOf(engs[0], opts)
			fmt.Fprintf(out, "replay %s @%s on %s, seed %d, timeout scale %g: %s", got.Scenario, got.MooncakeVersion, got.Engine, got.Seed, eo.TimeoutScale, got.Verdict)
			if got.Reason != "" {
				fmt.Fprintf(out, " (%s)", got.Reason)
			}
			fmt.Fprintln(out)
			printTimeline(out, got)
			if timelinePath != "" {
				if err := writeTimeline(timelinePath, []scenarios.Result{got}); err != nil {
					return err
				}
				fmt.Fprintf(out, "timeline: %s\n", timelinePath)
			}
			if ctx.Err() != nil {
				return silent(exitHarness)
			}
			if !eo.Wall {
				if got.TraceHash == want.TraceHash {
					fmt.Fprintf(out, "\ntrace hash matches the report: %s\n", got.TraceHash)
					return nil
				}
				fmt.Fprintf(out, "\ntrace hash DIFFERS: report %s, replay %s\n", want.TraceHash, got.TraceHash)
				return errVerdict
			}
			return compareWall(out, *want, got)
		},
	}
	cmd.Flags().StringVar(&reportPath, "report", "", "JSON report `FILE` written by faultlab run --report")
	cmd.Flags().StringVar(&name, "scenario", "", "scenario `NAME` in the report")
	cmd.Flags().StringVar(&engineName, "engine", "", "which engine's result (default: the first for the scenario)")
	cmd.Flags().StringVar(&version, "mooncake-version", "", "which version's result (default: the first for the scenario)")
	cmd.Flags().StringVar(&catalogDir, "catalog", "", "load the catalog from this directory instead of the built-in one")
	cmd.Flags().Float64Var(&timeoutScale, "timeout-scale", 0, "wall-clock engines: timeout scale, 0 < s <= 1 (default: the report's; 0.02 if it has none)")
	cmd.Flags().StringVar(&timelinePath, "timeline", "", "write the replay's HTML timeline to this file")
	markOutput(cmd, "timeline", outputFile)
	_ = cmd.MarkFlagRequired("report")
	_ = cmd.MarkFlagRequired("scenario")
	return cmd
}

// compareWall compares what a wall-clock replay observed with the report:
// traces differ run to run (timing, ports), outcomes must not.
func compareWall(out io.Writer, want, got scenarios.Result) error {
	want.Engine, got.Engine = "report", "replay"
	cs := scenarios.Compare([]scenarios.Result{want, got})
	var diffs []string
	if len(cs) == 1 {
		for _, d := range cs[0].Differences {
			// Wall durations and times in Mooncake calls vary with load (at
			// scale 0.02 a 10 % timing tolerance is a few milliseconds).
			if d != "duration" && !strings.HasPrefix(d, "timing.") {
				diffs = append(diffs, d)
			}
		}
	}
	fmt.Fprintf(out, "\nwall-clock engine: traces are not reproducible, so verdict, return codes, exception and death are compared (not the trace hash)\n")
	if len(diffs) == 0 {
		fmt.Fprintf(out, "outcome matches the report: %s, codes %s\n", got.Verdict, codesString(got.Observed.Codes()))
		return nil
	}
	fmt.Fprintf(out, "outcome DIFFERS from the report in %v\n", diffs)
	printComparison(out, cs)
	return errVerdict
}

// silentMsg prints a line and exits with code.
func silentMsg(w io.Writer, code int, format string, a ...any) error {
	fmt.Fprintf(w, format+"\n", a...)
	return silent(code)
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
