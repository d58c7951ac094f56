package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/spf13/cobra"
)

type runFlags struct {
	catalogFlags
	engines      string
	version      string
	seed         uint64
	report       string
	verbose      bool
	timeoutScale float64
	containers   bool
}

func runCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [NAME|PATH...]",
		Short: "Run scenarios (default: the whole catalog on sim)",
		Long: `Run scenarios by catalog name, name prefix ending in "/" (setup/), or path to a
YAML file or directory. With no argument, runs the whole catalog (filtered by
--label). Prints a verdict table and a summary; exits 1 on any fail or error.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			return runScenarios(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr(), f, args)
		},
	}
	f.catalogFlags.add(cmd)
	cmd.Flags().StringVar(&f.engines, "engine", engine.Names()[0], "engines to run on, comma-separated: "+strings.Join(engine.Names(), ", "))
	cmd.Flags().StringVar(&f.version, "mooncake-version", "", "run only at this Mooncake version (scenarios that do not apply to it are skipped)")
	cmd.Flags().Uint64Var(&f.seed, "seed", 1, "root seed of every run")
	cmd.Flags().StringVar(&f.report, "report", "", "write the JSON report to this file")
	cmd.Flags().BoolVarP(&f.verbose, "verbose", "v", false, "print skip reasons, observed logs of failures, and engine logs")
	cmd.Flags().BoolVar(&f.containers, "containers", false, "run every party in its own Docker container (real engine; images built locally)")
	cmd.Flags().Float64Var(&f.timeoutScale, "timeout-scale", 0.02, "fake engine: scale Mooncake timeouts and sleeps by this factor (0 < s <= 1); durations are reported scaled back")
	return cmd
}

func runScenarios(ctx context.Context, stdout, stderr io.Writer, f runFlags, args []string) error {
	log := logger(f.verbose)
	if f.version != "" {
		if _, err := mooncake.ProfileFor(f.version); err != nil {
			return fmt.Errorf("--mooncake-version: %w", err)
		}
	}
	engs, err := buildEngines(f.engines, log)
	if err != nil {
		return err
	}
	if f.containers {
		if engs, err = inContainers(ctx, engs, log); err != nil {
			return err
		}
	}
	catalog, err := f.load()
	if err != nil {
		return err
	}
	scs := catalog
	if len(args) > 0 {
		if scs, err = scenarios.Resolve(catalog, args); err != nil {
			return err
		}
	}
	scs = f.filter(scs)
	if len(scs) == 0 {
		return fmt.Errorf("no scenario selected")
	}
	if err := preflight(ctx, engs, scs, f.version); err != nil {
		return err
	}
	opts := scenarios.Options{Seed: f.seed, Version: f.version, TimeoutScale: f.timeoutScale, Logger: log}
	results := runAll(ctx, scs, engs, opts, stderr)
	rep := scenarios.NewReport(results)
	if len(engs) > 1 {
		rep.Comparison = scenarios.Compare(results)
	}
	printResults(stdout, results, f.verbose)
	if len(engs) > 1 {
		printComparison(stdout, rep.Comparison)
	}
	s := rep.Summary
	fmt.Fprintf(stdout, "\n%d runs: %d pass, %d fail, %d skip, %d error\n", len(results), s.Pass, s.Fail, s.Skip, s.Error)
	if f.report != "" {
		if err := writeReport(f.report, rep); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "report: %s\n", f.report)
	}
	if s.Fail > 0 || s.Error > 0 {
		return errVerdict
	}
	return nil
}

// runAll runs every scenario on every engine, printing a progress line per
// result on stderr once the run gets long.
func runAll(ctx context.Context, scs []*scenarios.Scenario, engs []engine.Engine, opts scenarios.Options, progress io.Writer) []scenarios.Result {
	var out []scenarios.Result
	start := time.Now()
	total := len(scs) * len(engs)
	n := 0
	for _, sc := range scs {
		for _, e := range engs {
			n++
			rs := scenarios.Run(ctx, sc, e, opts)
			out = append(out, rs...)
			if time.Since(start) > 2*time.Second || opts.Logger.Enabled(ctx, -4) {
				for _, r := range rs {
					fmt.Fprintf(progress, "[%d/%d %s] %s @%s on %s: %s\n", n, total, time.Since(start).Round(time.Millisecond), r.Scenario, r.MooncakeVersion, r.Engine, r.Verdict)
				}
			}
			if ctx.Err() != nil {
				return out
			}
		}
	}
	return out
}

func writeReport(path string, rep scenarios.Report) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

func printResults(w io.Writer, rs []scenarios.Result, verbose bool) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tENGINE\tVERSION\tVERDICT\tCODE/EXCEPTION\tVIRTUAL\tWALL")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Scenario, r.Engine, r.MooncakeVersion, r.Verdict,
			outcome(r.Observed), fmtMS(r.VirtualMS), fmtMS(r.WallMS))
	}
	_ = tw.Flush()
	for _, r := range rs {
		if r.Verdict == scenarios.Pass || (r.Verdict == scenarios.Skip && !verbose) {
			continue
		}
		fmt.Fprintf(w, "\n%s %s @%s on %s: %s\n", strings.ToUpper(r.Verdict), r.Scenario, r.MooncakeVersion, r.Engine, r.Reason)
		if verbose && r.Verdict != scenarios.Skip {
			for _, c := range r.Observed.Calls {
				fmt.Fprintf(w, "    call  %s\n", c)
			}
			for _, l := range r.Observed.Logs {
				fmt.Fprintf(w, "    log   %s\n", l)
			}
		}
	}
}

// outcome is the table's CODE/EXCEPTION cell.
func outcome(o scenarios.Observed) string {
	if e := o.Exception; e != nil {
		return short(e.Class+": "+e.Message, 84)
	}
	if d := o.Died; d != nil {
		return short("process died ("+d.Signal+"): "+d.Reason, 84)
	}
	return short(codesString(o.Codes()), 84)
}

func codesString(m map[string]any) string {
	if len(m) == 0 {
		return "-"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		b, _ := json.Marshal(m[k])
		parts = append(parts, k+"="+string(b))
	}
	return strings.Join(parts, " ")
}

func fmtMS(ms float64) string {
	switch {
	case ms >= 1000:
		return fmt.Sprintf("%.3fs", ms/1000)
	case ms >= 1:
		return fmt.Sprintf("%.1fms", ms)
	}
	return fmt.Sprintf("%.0fµs", ms*1000)
}

func printComparison(w io.Writer, cs []scenarios.Comparison) {
	if len(cs) == 0 {
		return
	}
	fmt.Fprintln(w, "\nCOMPARISON (* = differs between engines that ran)")
	for _, c := range cs {
		mark := func(field string) string {
			for _, d := range c.Differences {
				if d == field || strings.HasPrefix(d, field+".") {
					return "*"
				}
			}
			return " "
		}
		fmt.Fprintf(w, "\n%s @%s\n", c.Scenario, c.MooncakeVersion)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "  ENGINE\t%sVERDICT\t%sCODES\t%sEXCEPTION\t%sDURATION\n", mark("verdict"), mark("codes"), mark("exception"), mark("duration"))
		for _, e := range c.Engines {
			exc := "-"
			if e.Exception != nil {
				exc = short(e.Exception.Class+": "+e.Exception.Message, 60)
			}
			fmt.Fprintf(tw, "  %s\t %s\t %s\t %s\t %s\n", e.Engine, e.Verdict, short(codesString(e.Codes), 48), exc, fmtMS(e.DurationMS))
		}
		_ = tw.Flush()
	}
}
