package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/explore"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/spf13/cobra"
)

type exploreFlags struct {
	seeds        uint64
	budget       time.Duration
	seed         uint64
	engines      string
	versions     []string
	corpus       string
	report       string
	junit        string
	json         bool
	shard        string
	jobs         int
	repeat       uint64
	timeoutScale float64
	verbose      bool
	shrinkBudget int
	emit         string
	coverage     bool
	weight       string
}

func exploreCmd() *cobra.Command {
	var f exploreFlags
	cmd := &cobra.Command{
		Use:   "explore",
		Short: "Generate scenarios from seeds, judge them by invariants, shrink and keep what fails",
		Long: `Generate whole scenarios (topology, config, faults, steps, Mooncake version) from
seeds, run them, and judge every run by invariants: no harness error, only known
exception texts, no phase longer than Mooncake's timeouts allow, no phantom or
silently lost pages, recovery once faults clear, same seed same trace. With
several engines (--engine sim,real) any difference is a divergence. Failures are
shrunk to minimal scenarios in --corpus. Exits 1 when anything was found.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// SIGTERM too: a CI job's timeout must still close every real world.
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runExplore(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr(), f)
		},
	}
	fl := cmd.Flags()
	fl.Uint64Var(&f.seeds, "seeds", 0, "number of seeds to run (across all shards)")
	fl.DurationVar(&f.budget, "time-budget", 0, "stop after this much wall time (with --seeds: whichever comes first)")
	fl.Uint64Var(&f.seed, "seed", 1, "first seed")
	fl.StringVar(&f.engines, "engine", engine.Model(), "the model, or model,other for differential runs (engines: "+strings.Join(engine.Names(), ", ")+")")
	fl.StringSliceVar(&f.versions, "mooncake-version", nil, "draw only these Mooncake versions (repeatable; default: every known version, or every installed one with real)")
	fl.StringVar(&f.corpus, "corpus", explore.DefaultCorpus, "directory for minimal failing scenarios (\"\" = do not write)")
	fl.StringVar(&f.report, "report", "", "write the JSON report to this file")
	fl.StringVar(&f.junit, "junit", "", "write a JUnit XML report to this file")
	fl.BoolVar(&f.json, "json", false, "print the JSON report on stdout")
	fl.StringVar(&f.shard, "shard", "0/1", "run shard K of N: seeds s with (s-seed) mod N == K; "+scenarios.ShardHelp)
	fl.IntVarP(&f.jobs, "jobs", "j", 2, "scenarios run at once")
	fl.Uint64Var(&f.repeat, "repeat-every", 50, "re-run every k-th seed and require the same trace hash")
	fl.Float64Var(&f.timeoutScale, "timeout-scale", 0.02, "fake engine: scale Mooncake timeouts by this factor")
	fl.IntVar(&f.shrinkBudget, "shrink-budget", 0, "runs one shrink may make (0 = 200 on sim, 20 with a wall engine)")
	fl.StringVar(&f.emit, "emit", "", "write the generated scenarios as YAML into this directory (seed-N.yaml) instead of running them")
	fl.BoolVar(&f.coverage, "coverage", false, "generate the seeds without running them and print, per knob of the knob table and value class (valid, boundary, invalid), how many scenarios drew it; exits 1 if a knob/class was never drawn")
	fl.StringVar(&f.weight, "weight", "", "weight the generator's draws: config = every scenario carries 1–3 knob draws of the knob table (default: 0–3)")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "log every finding and engine logs")
	markOutput(cmd, "report", outputFile)
	markOutput(cmd, "junit", outputFile)
	markOutput(cmd, "corpus", outputDir)
	markOutput(cmd, "emit", outputDir)
	return cmd
}

// parseShard is scenarios.ParseShard, the one --shard syntax of run and
// explore, as explore's unsigned seed offsets.
func parseShard(s string) (uint64, uint64, error) {
	k, n, err := scenarios.ParseShard(s)
	if err != nil {
		return 0, 0, usageErr(err)
	}
	return uint64(k), uint64(n), nil
}

func runExplore(ctx context.Context, stdout, stderr io.Writer, f exploreFlags) error {
	log := logger(f.verbose)
	shard, shards, err := parseShard(f.shard)
	if err != nil {
		return err
	}
	if f.seeds == 0 && f.budget == 0 {
		return usageErr(fmt.Errorf("give --seeds N or --time-budget D"))
	}
	for _, v := range f.versions {
		if _, err := mooncake.ProfileFor(v); err != nil {
			return usageErr(fmt.Errorf("--mooncake-version: %w", err))
		}
	}
	if f.weight != "" && f.weight != "config" {
		return usageErr(fmt.Errorf("--weight %q: the only weight is config", f.weight))
	}
	engs, err := buildEngines(f.engines, log)
	if err != nil {
		return usageErr(err)
	}
	if f.emit != "" {
		return emitScenarios(f, engs, shard, shards)
	}
	if f.coverage {
		return printCoverage(stdout, f, engs)
	}
	if model := engine.Model(); engs[0].Name() != model {
		ref, _ := engine.First(engine.Reference)
		return usageErr(fmt.Errorf("--engine %s: the first engine is the model and must be %s (e.g. %s,%s)", f.engines, model, model, ref.Name))
	}
	versions := f.versions
	if len(engs) > 1 && len(versions) == 0 {
		// Draw only versions every engine can run (real: the installed ones).
		for _, v := range mooncake.Versions {
			ok := true
			for _, e := range engs[1:] {
				ok = ok && e.Available(ctx, v) == nil
			}
			if ok {
				versions = append(versions, v)
			}
		}
		if len(versions) == 0 {
			return fmt.Errorf("--engine %s: no Mooncake version is available on every engine (real: run `make real-engine`)", f.engines)
		}
	}
	opts := explore.Options{
		Seeds: f.seeds, Budget: f.budget, Seed: f.seed, Engines: engs, Versions: versions, Config: f.weight == "config",
		Shard: shard, Shards: shards, Jobs: f.jobs, RepeatEvery: f.repeat, Corpus: f.corpus,
		TimeoutScale: f.timeoutScale, Logger: log, ShrinkBudget: f.shrinkBudget,
		Progress: progressPrinter(stderr),
	}
	defer explore.TuneGC()()
	rep, err := explore.Explore(ctx, opts)
	if err != nil {
		return err
	}
	fmt.Fprintln(stderr, progressLine(rep.Summary, time.Duration(rep.Summary.WallS*float64(time.Second))))
	if err := outputReport(stdout, rep, f.report, f.junit, f.json); err != nil {
		return err
	}
	if ctx.Err() != nil && f.budget == 0 {
		return fmt.Errorf("interrupted after %d runs", rep.Summary.Runs)
	}
	if rep.Found() {
		return errVerdict
	}
	return nil
}

// progressPrinter rewrites one line on a terminal, else prints a line
// every 10 s (CI logs).
func progressPrinter(w io.Writer) func(explore.Summary, time.Duration) {
	if fh, ok := w.(*os.File); ok {
		if st, err := fh.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			return func(s explore.Summary, el time.Duration) { fmt.Fprint(w, "\r"+progressLine(s, el)) }
		}
	}
	var last time.Duration
	return func(s explore.Summary, el time.Duration) {
		if el-last >= 10*time.Second {
			last = el
			fmt.Fprintln(w, progressLine(s, el))
		}
	}
}

// progressLine: runs, runs/s, failures and ETA.
func progressLine(s explore.Summary, el time.Duration) string {
	rate := 0.0
	if el > 0 {
		rate = float64(s.Runs) / el.Seconds()
	}
	eta := "-"
	if s.Target > 0 && rate > 0 && s.Runs <= s.Target {
		eta = (time.Duration(float64(s.Target-s.Runs)/rate) * time.Second).Round(time.Second).String()
	}
	return fmt.Sprintf("explore: %d runs, %.0f runs/s, %d errors, %d violations, %d divergences, ETA %s   ",
		s.Runs, rate, s.Errors, s.Violations, s.Divergences, eta)
}

func printExplore(w io.Writer, r explore.Report) {
	s := r.Summary
	fmt.Fprintf(w, "%d generated scenarios (", s.Runs)
	first := true
	for _, e := range engine.Names() {
		if n, ok := s.EngineRuns[e]; ok {
			if !first {
				fmt.Fprint(w, ", ")
			}
			fmt.Fprintf(w, "%s %d runs", e, n)
			if k := s.Skipped[e]; k > 0 {
				fmt.Fprintf(w, " + %d skipped", k)
			}
			first = false
		}
	}
	fmt.Fprintf(w, ") in %.1fs: %.0f runs/s; %d errors, %d violations, %d divergences\n", s.WallS, s.RunsPerS, s.Errors, s.Violations, s.Divergences)
	fmt.Fprintf(w, "generated_hash %s\n", s.GeneratedHash)
	for _, f := range r.Findings {
		fmt.Fprintf(w, "  seed %d  %s  %s  %s@%s  %s\n", f.Seed, f.Kind, f.Invariant, f.Engine, f.Version, f.File)
		fmt.Fprintf(w, "      %s\n", f.Reason)
	}
}

// outputReport writes the report to its files and prints it (JSON or the
// summary).
func outputReport(stdout io.Writer, r explore.Report, report, junit string, asJSON bool) error {
	if report != "" {
		if err := writeJSON(report, r); err != nil {
			return err
		}
	}
	if junit != "" {
		if err := writeJUnit(junit, r); err != nil {
			return err
		}
	}
	if !asJSON {
		printExplore(stdout, r)
		return nil
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

func writeJUnit(path string, r explore.Report) error {
	fh, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	if err := explore.WriteJUnit(fh, r); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

// emitScenarios writes the shard's generated scenarios as files `faultlab
// run` accepts.
func emitScenarios(f exploreFlags, engs []engine.Engine, shard, shards uint64) error {
	if f.seeds == 0 {
		return usageErr(fmt.Errorf("--emit needs --seeds"))
	}
	if err := os.MkdirAll(f.emit, 0o755); err != nil {
		return err
	}
	opts := explore.GenOptions{Versions: f.versions, Wall: len(engs) > 1, Config: f.weight == "config"}
	for i := shard; i < f.seeds; i += shards {
		d := explore.Generate(f.seed+i, opts)
		if err := os.WriteFile(filepath.Join(f.emit, fmt.Sprintf("seed-%d.yaml", f.seed+i)), d.Marshal(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// printCoverage is `faultlab explore --coverage`: the knob table's draws
// over the seeds, generation only.
func printCoverage(out io.Writer, f exploreFlags, engs []engine.Engine) error {
	if f.seeds == 0 {
		return usageErr(fmt.Errorf("--coverage needs --seeds"))
	}
	c := explore.KnobCoverage(f.seed, f.seeds, explore.GenOptions{Versions: f.versions, Wall: len(engs) > 1, Config: f.weight == "config"})
	if f.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(c); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "KNOB\t%s\t\n", strings.ToUpper(strings.Join(mooncake.ValueClasses, "\t")))
		for _, k := range mooncake.Knobs {
			fmt.Fprintf(tw, "%s\t", k.Name)
			for _, cl := range mooncake.ValueClasses {
				fmt.Fprintf(tw, "%d\t", c.Counts[k.Name][cl])
			}
			fmt.Fprintln(tw)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(out, "%d seeds; %d knobs × %d classes; never drawn: %d\n", c.Seeds, len(mooncake.Knobs), len(mooncake.ValueClasses), len(c.Missing))
	}
	if len(c.Missing) > 0 {
		return &exitError{code: 1, err: fmt.Errorf("never drawn: %s", strings.Join(c.Missing, ", "))}
	}
	return nil
}
