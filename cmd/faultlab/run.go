package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/explore"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/realengine"
	"github.com/mooncake-faultlab/faultlab/report/junit"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sglang"
	"github.com/spf13/cobra"
)

type runFlags struct {
	catalogFlags
	engines      string
	version      string
	seed         uint64
	report       string
	junit        string
	json         bool
	verbose      bool
	timeoutScale float64
	jobs         int
	shard        string
	slow         bool
	emitExpect   bool
	timeline     string
	progress     string
	sglang       string
	sglangVer    string
	containers   bool
	build        string
	// sglangCheckout: an SGLang source tree run as --sglang-version.
	sglangCheckout string
}

func runCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [NAME|PATH...]",
		Short: "Run scenarios (default: the whole catalog on sim)",
		Long: `Run scenarios by catalog name, name prefix ending in "/" (setup/), or path to a
YAML file or directory. With no argument, runs the whole catalog (filtered by
--label). On sim, scenarios labelled container run in sim's modelled container
world. Prints a verdict table, one line per skip with its reason and a summary,
in catalog order whatever -j. Output paths are checked before anything runs.

` + exitCodesHelp,
		Example: `  faultlab run                                   # the catalog on sim
  faultlab run --engine fake,real -j 6 --junit out.xml
  faultlab run setup/ --json | jq .summary
  faultlab run ./my-bug.yaml --emit-expect --timeline t.html
  faultlab run --engine real --shard 1/4         # the 2nd quarter (0-based), on another machine`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := interruptContext(cmd.Context())
			defer stop()
			if f.containers && !cmd.Flags().Changed("timeout-scale") {
				f.timeoutScale = containersTimeoutScale
			}
			return runScenarios(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr(), f, args)
		},
	}
	f.catalogFlags.add(cmd)
	cmd.Flags().StringVar(&f.engines, "engine", engine.Model(), "engines to run on, comma-separated: "+strings.Join(engine.Names(), ", "))
	cmd.Flags().StringVar(&f.version, "mooncake-version", "", "run only at this Mooncake version (scenarios that do not apply to it are skipped)")
	cmd.Flags().Uint64Var(&f.seed, "seed", 1, "root seed of every run")
	cmd.Flags().StringVar(&f.report, "report", "", "write the JSON report to this file (- = stdout)")
	cmd.Flags().StringVar(&f.junit, "junit", "", "write a JUnit XML report to this file (one testcase per scenario × engine × version)")
	cmd.Flags().BoolVar(&f.json, "json", false, "print the JSON report on stdout (the table goes to stderr)")
	cmd.Flags().BoolVarP(&f.verbose, "verbose", "v", false, "print skip reasons whole, observed logs of failures, and engine logs")
	cmd.Flags().StringVar(&f.sglang, "sglang", "model", "who plays SGLang, comma-separated: model (the Go model), real (SGLang's own code; --engine real only)")
	cmd.Flags().StringVar(&f.sglangVer, "sglang-version", "", "SGLang release to play (default: the newest; real: an installed one)")
	cmd.Flags().Float64Var(&f.timeoutScale, "timeout-scale", defaultTimeoutScale, "engines that scale time (fake): run Mooncake timeouts and sleeps at this factor, 0 < s <= 1; durations are reported scaled back (default 0.05 with --containers)")
	cmd.Flags().IntVarP(&f.jobs, "jobs", "j", 0, "worlds run at once per engine (0 = per engine: a core each where time is virtual or scaled, three per core where Mooncake's own timeouts run)")
	cmd.Flags().StringVar(&f.shard, "shard", "", "run only shard K of N: every N-th run in catalog order from the K-th, for splitting across machines; "+scenarios.ShardHelp)
	cmd.Flags().BoolVar(&f.slow, "slow", false, "also run slow-wall scenarios on engines with real Mooncake timeouts (or set "+scenarios.SlowEnv+"=1)")
	cmd.Flags().BoolVar(&f.emitExpect, "emit-expect", false, "print each run's observed outcome as an expect: block to paste into the scenario")
	cmd.Flags().StringVar(&f.timeline, "timeline", "", "write an HTML timeline of every run (one lane per party) to this file")
	cmd.Flags().StringVar(&f.progress, "progress", "auto", "progress on stderr: auto (a live line on a terminal, a heartbeat every 30 s otherwise), line, heartbeat, none")
	cmd.Flags().StringVar(&f.sglangCheckout, "sglang-checkout", "", "with --sglang real: run SGLang's code from this source tree (its python/sglang, e.g. a branch with a changed mooncake_store.py) in the venv of --sglang-version, the release it derives from")
	cmd.Flags().StringVar(&f.build, "build", "", "real runs this build (installed by `faultlab versions add NAME --wheel ...`) as the release it derives from; use with --mooncake-version RELEASE")
	cmd.Flags().BoolVar(&f.containers, "containers", false, "run in Docker containers: real, every party; fake, its servers and toxiproxy (images built locally)")
	for _, o := range []string{"report", "junit", "timeline"} {
		markOutput(cmd, o, outputFile)
	}
	return cmd
}

// runSetup is what runScenarios resolves before anything runs; every
// problem found here is the user's (exit 2) or the machine's (exit 3).
func runSetup(ctx context.Context, f runFlags, args []string) ([]engine.Engine, []sglang.Side, []scenarios.Job, scenarios.Options, error) {
	var opts scenarios.Options
	if f.version != "" {
		if _, err := mooncake.ProfileFor(f.version); err != nil {
			return nil, nil, nil, opts, usageErr(fmt.Errorf("--mooncake-version: %w", err))
		}
	}
	if !(f.timeoutScale > 0 && f.timeoutScale <= 1) {
		return nil, nil, nil, opts, usageErr(fmt.Errorf("--timeout-scale %g: want 0 < s <= 1 (it shortens Mooncake's timeouts; 1 = unscaled)", f.timeoutScale))
	}
	if !slices.Contains(progressModes, f.progress) {
		return nil, nil, nil, opts, usageErr(fmt.Errorf("--progress %q: want one of %s", f.progress, strings.Join(progressModes, ", ")))
	}
	if f.jobs < 0 {
		return nil, nil, nil, opts, usageErr(fmt.Errorf("-j %d: want a positive number of worlds (0 = the engine's default)", f.jobs))
	}
	si, sn := 0, 1
	if f.shard != "" {
		var err error
		if si, sn, err = scenarios.ParseShard(f.shard); err != nil {
			return nil, nil, nil, opts, usageErr(err)
		}
	}
	engs, err := buildEngines(f.engines, logger(f.verbose))
	if err != nil {
		return nil, nil, nil, opts, usageErr(err)
	}
	if f.build != "" {
		local := func(e engine.Engine) bool { return engine.CapsOf(e.Name()).Has(engine.LocalBuild) }
		if !slices.ContainsFunc(engs, local) {
			return nil, nil, nil, opts, usageErr(fmt.Errorf("--build %s: runs on the %s engine; add --engine %[2]s", f.build, strings.Join(engine.NamesWith(engine.LocalBuild), ",")))
		}
		for i, e := range engs {
			if r, _ := engine.Lookup(e.Name()); local(e) {
				engs[i] = r.New(engine.Options{Logger: logger(f.verbose), Build: f.build})
			}
		}
	}
	if f.sglangCheckout != "" && !strings.Contains(f.sglang, realengine.SGLangSide) {
		return nil, nil, nil, opts, usageErr(fmt.Errorf("--sglang-checkout runs SGLang's own code: add --sglang real (or model,real)"))
	}
	sides, err := buildSides(f.sglang, f.sglangVer, f.sglangCheckout, engs)
	if err != nil {
		return nil, nil, nil, opts, usageErr(err)
	}
	if f.containers {
		if engs, err = inContainers(ctx, engs, logger(f.verbose)); err != nil {
			return nil, nil, nil, opts, err
		}
	}
	catalog, err := f.load()
	if err != nil {
		return nil, nil, nil, opts, usageErr(err)
	}
	scs := catalog
	if len(args) > 0 {
		if scs, err = scenarios.Resolve(catalog, args); err != nil {
			return nil, nil, nil, opts, usageErr(err)
		}
	}
	if scs, err = f.filter(catalog, scs); err != nil {
		return nil, nil, nil, opts, err
	}
	if len(scs) == 0 {
		return nil, nil, nil, opts, usageErr(fmt.Errorf("no scenario selected"))
	}
	if err := preflight(ctx, engs, scs, f.version); err != nil {
		return nil, nil, nil, opts, err
	}
	opts = scenarios.Options{Seed: f.seed, Version: f.version, TimeoutScale: f.timeoutScale, Slow: f.slow, Logger: logger(f.verbose), Invariants: explore.Check}
	jobs := scenarios.Shard(scenarios.Jobs(scs, engs, opts), si, sn)
	return engs, sides, jobs, opts, nil
}

func runScenarios(ctx context.Context, stdout, stderr io.Writer, f runFlags, args []string) error {
	start := time.Now()
	engs, sides, jobs, opts, err := runSetup(ctx, f, args)
	if err != nil {
		return err
	}
	for _, side := range sides {
		if c, ok := side.(io.Closer); ok { // real SGLang's fork servers
			defer c.Close()
		}
	}
	info := runInfo(engs, opts, f, args)
	pr := newProgress(stderr, f.progress, len(jobs)*len(sides))
	popts := scenarios.ParallelOptions{Jobs: map[string]int{}, Started: pr.started, Finished: pr.finished}
	for _, e := range engs {
		n := f.jobs
		if n == 0 {
			n = scenarios.DefaultJobs(e, opts)
		}
		popts.Jobs[e.Name()] = n
	}
	info.Jobs = popts.Jobs
	pr.start(ctx)
	var results []scenarios.Result
	for _, side := range sides {
		opts.SGLang = side
		results = append(results, scenarios.RunParallel(ctx, jobs, opts, popts)...)
	}
	pr.stop()
	info.WallMS = float64(time.Since(start).Milliseconds())
	info.Interrupted = ctx.Err() != nil
	rep := scenarios.NewReport(results)
	rep.Run = &info
	if len(engs)*len(sides) > 1 {
		rep.Comparison = scenarios.Compare(results)
	}
	// With --json (or --report -) stdout carries only the report.
	human := stdout
	if f.json || f.report == "-" {
		human = stderr
	}
	printResults(human, results, f.verbose)
	if len(engs)*len(sides) > 1 {
		printComparison(human, rep.Comparison)
	}
	s := rep.Summary
	fmt.Fprintf(human, "\n%s: %d pass, %d fail, %d skip, %d error\n", plural(len(results), "run"), s.Pass, s.Fail, s.Skip, s.Error)
	if f.emitExpect {
		if err := emitExpects(human, results); err != nil {
			return err
		}
	}
	var werr error
	if f.json || f.report == "-" {
		werr = errors.Join(werr, encodeReport(stdout, rep))
	}
	if f.report != "" && f.report != "-" {
		werr = errors.Join(werr, writeFile(f.report, func(w io.Writer) error { return encodeReport(w, rep) }))
		fmt.Fprintf(human, "report: %s\n", f.report)
	}
	if f.junit != "" {
		werr = errors.Join(werr, writeFile(f.junit, func(w io.Writer) error { return junit.Write(w, junit.FromReport(rep)) }))
		fmt.Fprintf(human, "junit: %s\n", f.junit)
	}
	if f.timeline != "" {
		werr = errors.Join(werr, writeTimeline(f.timeline, results))
		fmt.Fprintf(human, "timeline: %s\n", f.timeline)
	}
	if werr != nil {
		return werr
	}
	if info.Interrupted {
		stopped := 0
		for _, r := range results {
			if strings.HasSuffix(r.Reason, "interrupted") {
				stopped++
			}
		}
		fmt.Fprintf(human, "interrupted: %s stopped in flight, %d not started; every world started was closed\n", plural(stopped, "run"), len(jobs)-len(results))
		return silent(exitHarness)
	}
	return silent(verdictCode(s))
}

// verdictCode is the exit status of a finished run: a harness error
// outranks a failure, and a run where nothing ran is not a pass.
func verdictCode(s scenarios.Summary) int {
	switch {
	case s.Error > 0:
		return exitHarness
	case s.Fail > 0:
		return exitFail
	case s.Pass == 0:
		return exitNothing
	}
	return exitOK
}

func runInfo(engs []engine.Engine, opts scenarios.Options, f runFlags, args []string) scenarios.RunInfo {
	b := buildInfo()
	ri := scenarios.RunInfo{Tool: "faultlab", Version: b.Version, Commit: b.Commit, GoVersion: b.GoVersion,
		EngineOptions: map[string]scenarios.EngineOptions{}, TimeoutScale: opts.TimeoutScale, Seed: opts.Seed,
		MooncakeVersion: opts.Version, Slow: opts.Slow, Shard: f.shard, Args: args}
	for _, e := range engs {
		ri.Engines = append(ri.Engines, e.Name())
		ri.EngineOptions[e.Name()] = scenarios.OptionsOf(e, opts)
	}
	return ri
}

func encodeReport(w io.Writer, rep scenarios.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	return nil
}

// writeFile writes path through fn, reporting which file failed.
func writeFile(path string, fn func(io.Writer) error) error {
	fh, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := fn(fh); err != nil {
		fh.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := fh.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func printResults(w io.Writer, rs []scenarios.Result, verbose bool) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	// Runs at several SGLang releases (a scenario's sglang.versions) name
	// the release beside the Mooncake version.
	ver := func(r scenarios.Result) string { return r.MooncakeVersion }
	if slices.ContainsFunc(rs, func(r scenarios.Result) bool { return r.SGLangVersion != rs[0].SGLangVersion }) {
		ver = func(r scenarios.Result) string { return r.MooncakeVersion + " sglang " + r.SGLangVersion }
	}
	fmt.Fprintln(tw, "SCENARIO\tENGINE\tVERSION\tVERDICT\tCODE/EXCEPTION\tVIRTUAL\tWALL")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Scenario, r.Engine, ver(r), r.Verdict,
			outcome(r.Observed), fmtMS(r.VirtualMS), fmtMS(r.WallMS))
	}
	_ = tw.Flush()
	// A skip's reason in one short line each (-v: whole, with the others).
	if !verbose {
		first := true
		for _, r := range rs {
			if r.Verdict != scenarios.Skip {
				continue
			}
			if first {
				fmt.Fprintln(w)
				first = false
			}
			fmt.Fprintln(w, short(fmt.Sprintf("SKIP %s @%s on %s: %s", r.Scenario, ver(r), r.Engine, r.Reason), skipLineWidth))
		}
	}
	for _, r := range rs {
		if r.Verdict == scenarios.Pass || (r.Verdict == scenarios.Skip && !verbose) {
			continue
		}
		fmt.Fprintf(w, "\n%s %s @%s on %s: %s\n", strings.ToUpper(r.Verdict), r.Scenario, ver(r), r.Engine, r.Reason)
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

// skipLineWidth is a skip line's length without -v: one terminal line of
// the usual width, enough for the reason's first clause.
const skipLineWidth = 160

// outcome is the table's CODE/EXCEPTION cell.
func outcome(o scenarios.Observed) string {
	if e := o.Exception; e != nil {
		return short(e.Class+": "+e.Message, 84)
	}
	if d := o.Died; d != nil {
		return short("process died ("+d.How()+"): "+d.Reason, 84)
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

// defaultTimeoutScale is run's --timeout-scale (and replay's for a report
// that does not record one).
const defaultTimeoutScale = 0.02

// containersTimeoutScale is --timeout-scale's default with --containers:
// every fake link crosses the Docker bridge twice, and that latency counts
// 1/s times (docs/ENGINES.md, "fake" → "In containers").
const containersTimeoutScale = 0.05

// plural is "1 run", "2 runs".
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
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

// printLogDiff shows SGLang's lines of each side where they differ.
func printLogDiff(w io.Writer, es []scenarios.EngineOutcome) {
	for _, e := range es {
		fmt.Fprintf(w, "  SGLang lines, %s %s:\n", e.Engine, e.SGLang)
		for _, l := range e.SGLangLogs {
			fmt.Fprintf(w, "    %s\n", short(l, 160))
		}
	}
}

// printComparison prints each scenario × version across engines. Codes
// and exceptions are never cut: a differing code (also the one at the end
// of "error code: -600") is the point of the table, so a long cell goes on
// its own line below instead.
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
		fmt.Fprintf(tw, "  ENGINE\tSGLANG\t%sVERDICT\t%sCODES\t%sEXCEPTION\t%sDURATION\t%sTIME IN MOONCAKE\t%sSGLANG LINES\n", mark("verdict"), mark("codes"), mark("exception"), mark("duration"), mark("timing"), mark("sglang_logs"))
		var long []string
		for _, e := range c.Engines {
			exc := "-"
			if e.Exception != nil {
				exc = strings.Join(strings.Fields(e.Exception.Class+": "+e.Exception.Message), " ")
				if len(exc) > 60 {
					long = append(long, fmt.Sprintf("  %s exception: %s", e.Engine, exc))
					exc = "(below)"
				}
			}
			codes := codesString(e.Codes)
			if len(codes) > 48 {
				long = append(long, fmt.Sprintf("  %s codes: %s", e.Engine, codes))
				codes = "(below)"
			}
			fmt.Fprintf(tw, "  %s\t%s\t %s\t %s\t %s\t %s\t %s\t %d\n", e.Engine, e.SGLang, e.Verdict, codes, exc, fmtMS(e.DurationMS), timingsString(e.TimingsMS), len(e.SGLangLogs))
		}
		_ = tw.Flush()
		for _, l := range long {
			fmt.Fprintln(w, l)
		}
		if mark("sglang_logs") == "*" {
			printLogDiff(w, c.Engines)
		}
	}
}

// timingsString is "setup=10.0s put=1.2ms ...": time in each Mooncake
// method, methods sorted.
func timingsString(t map[string]float64) string {
	if len(t) == 0 {
		return "-"
	}
	var parts []string
	for _, m := range slices.Sorted(maps.Keys(t)) {
		parts = append(parts, m+"="+fmtMS(t[m]))
	}
	return strings.Join(parts, " ")
}
