package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/explain"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/realengine"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// modelEngine is the model (engine.Model: the first registered
// deterministic engine): explain and new run the catalog on it to know what
// each scenario's run prints (milliseconds for the whole catalog).
func modelEngine() (engine.Engine, error) {
	r, ok := engine.First(engine.Deterministic)
	if !ok {
		return nil, fmt.Errorf("no virtual-time engine linked into this program")
	}
	return r.New(engine.Options{Logger: logger(false)}), nil
}

// readLog reads a log file, or stdin for "-" or no argument.
func readLog(cmd *cobra.Command, args []string) (string, error) {
	if len(args) == 0 || args[0] == "-" {
		b, err := io.ReadAll(cmd.InOrStdin())
		if err != nil {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		return string(b), nil
	}
	b, err := os.ReadFile(args[0])
	if err != nil {
		return "", usageErr(fmt.Errorf("read log: %w", err))
	}
	return string(b), nil
}

// fieldContext is what explain and new need for a field log: the catalog,
// what each scenario prints on the model, and the model engine.
type fieldContext struct {
	catalog []*scenarios.Scenario
	fp      explain.Fingerprints
	model   engine.Engine
}

// loadField loads the catalog and runs it on the model at version (every
// scenario's versions when version is "": the log may state its own).
func loadField(cmd *cobra.Command, cf catalogFlags, version string) (fieldContext, error) {
	if version != "" {
		if _, err := mooncake.ProfileFor(version); err != nil {
			return fieldContext{}, usageErr(fmt.Errorf("--mooncake-version: %w", err))
		}
	}
	catalog, err := cf.load()
	if err != nil {
		return fieldContext{}, usageErr(err)
	}
	model, err := modelEngine()
	if err != nil {
		return fieldContext{}, err
	}
	return fieldContext{catalog, fingerprintCache().Fingerprint(cmd.Context(), catalog, model, version), model}, nil
}

// fingerprintCache keeps the catalog on the model between calls
// (explain.FingerprintCache) in $FAULTLAB_FINGERPRINT_CACHE ("off": none),
// else under the cache directory; without one, it is computed each time.
func fingerprintCache() explain.FingerprintCache {
	dir, ok := os.LookupEnv("FAULTLAB_FINGERPRINT_CACHE")
	switch {
	case dir == "off":
		return explain.FingerprintCache{}
	case ok && dir != "":
		return explain.FingerprintCache{Dir: dir}
	}
	if d, err := realengine.CacheDir(); err == nil {
		return explain.FingerprintCache{Dir: d}
	}
	return explain.FingerprintCache{}
}

func explainCmd() *cobra.Command {
	var cf catalogFlags
	var version string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "explain [LOGFILE|-]",
		Short: "Which causes explain a field log, ranked, with the evidence and the remedy",
		Long: `Read a field log (a file, or stdin for - or no argument) as operators paste
it: SGLang logs and tracebacks (complete or cut short), Mooncake's glog
lines and mooncake_master logs, vLLM/LMCache logs, pip show / pip freeze /
version banners, env dumps and command lines. Name the causes that explain
it, best first, each with the log lines that support it (with the
file:line Mooncake printed them from), those against it, and the remedy:

  scenario  a catalog scenario that ends in the log's outcome at that
            Mooncake version, or whose rare lines the log has when it was
            cut before the outcome (faultlab run reproduces it)
  class     a field cause the catalog has no scenario for, known by the
            lines only it prints (explain/classes/)

Scoring, in points: ending in a scenario's exact outcome, the rarity across
the catalog of the lines it expects or prints on the model, the weights of
a class's lines; a line a cause never prints counts against it. Below the
threshold explain names no cause: it says so and lists the nearest. The
Mooncake version is --mooncake-version, else the one the log states.

` + explainExitHelp,
		Example: `  faultlab explain sglang.log
  faultlab explain master.log --mooncake-version 0.3.13.post1
  echo "RuntimeError: Failed to setup Mooncake store, error code: -1" | faultlab explain --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			log, err := readLog(cmd, args)
			if err != nil {
				return err
			}
			fc, err := loadField(cmd, cf, version)
			if err != nil {
				return err
			}
			d, err := explain.Diagnose(fc.catalog, fc.fp, log, version)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(d); err != nil {
					return err
				}
			} else {
				printDiagnosis(out, d)
			}
			if d.Verdict != "cause" {
				return silent(exitNothing)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&cf.dir, "catalog", "", "load the catalog from this directory instead of the built-in one")
	cmd.Flags().StringVar(&version, "mooncake-version", "", "the Mooncake version the log came from (default: the one the log states, else each scenario's)")
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"verdict", "causes": [{"kind", "name", "cause", "points", "evidence", "remedy", ...}], "nearest", "evidence", "candidates"}`)
	return cmd
}

func printDiagnosis(w io.Writer, d explain.Diagnosis) {
	if v := d.MooncakeVersion; v != "" {
		from := map[string]string{"given": "as given", "log": "as the log states"}[d.VersionFrom]
		fmt.Fprintf(w, "Mooncake %s (%s)", v, from)
	} else if d.Evidence.MooncakeVersion != "" {
		fmt.Fprintf(w, "Mooncake %s (the log states it; faultlab models no such release: every version tried)", d.Evidence.MooncakeVersion)
	} else {
		fmt.Fprint(w, "Mooncake version not stated: each scenario's versions tried")
	}
	if d.Evidence.SGLangVersion != "" {
		fmt.Fprintf(w, ", SGLang %s", d.Evidence.SGLangVersion)
	}
	fmt.Fprintln(w)
	if facts := d.Evidence.Facts(); len(facts) > 0 {
		fmt.Fprintf(w, "the log also states: %s\n", strings.Join(facts, "; "))
	}
	if n := d.Evidence.SetAside; n > 0 {
		fmt.Fprintf(w, "a long log: %d repeated lines set aside (each kind of line read at its first two and its last)\n", n)
	}
	if len(d.Causes) == 0 {
		if d.Ambiguous != "" {
			fmt.Fprintf(w, "\nno cause fits this log clearly: %s.\n", d.Ambiguous)
		} else {
			fmt.Fprintf(w, "\nno cause fits this log (none reaches %.0f points).\n", d.Threshold)
		}
		if d.Advice != "" {
			fmt.Fprintf(w, "%s.\n", d.Advice)
		}
		if len(d.Nearest) > 0 {
			fmt.Fprintln(w, "nearest:")
			for i, c := range d.Nearest {
				printCause(w, i+1, c)
			}
		}
		fmt.Fprintln(w, "\nA new cause? Add the log to the field corpus (docs/FIELD.md), or write the scenario that reproduces it.")
		return
	}
	if len(d.Causes) == 1 {
		fmt.Fprintln(w, "\n1 cause fits:")
	} else {
		fmt.Fprintf(w, "\n%d causes fit, best first:\n", len(d.Causes))
	}
	for i, c := range d.Causes {
		printCause(w, i+1, c)
	}
	if len(d.Nearest) > 0 {
		var ns []string
		for _, c := range d.Nearest {
			ns = append(ns, c.String())
		}
		fmt.Fprintf(w, "\nbelow the threshold: %s\n", strings.Join(ns, ", "))
	}
}

func printCause(w io.Writer, i int, c explain.Cause) {
	at := ""
	if c.Version != "" {
		at = " @" + c.Version
	}
	if c.Resembles {
		fmt.Fprintf(w, "\n%d. %s %s  by its words only (no line of it matched)\n", i, c.Kind, c.Name)
	} else {
		fmt.Fprintf(w, "\n%d. %s %s%s  %.1f points\n", i, c.Kind, c.Name, at, c.Points)
	}
	fmt.Fprintf(w, "   cause:   %s\n", c.Cause)
	if c.Outcome != "" {
		fmt.Fprintf(w, "   ends in: %s\n", c.Outcome)
	}
	for _, e := range c.Evidence {
		fmt.Fprintf(w, "     + %s\n", short(explain.Humanize(e), 150))
	}
	for _, e := range c.Against {
		fmt.Fprintf(w, "     - %s\n", short(explain.Humanize(e), 150))
	}
	fmt.Fprintf(w, "   remedy:  %s\n", explain.Humanize(c.Remedy))
	if len(c.Reproduce) > 0 {
		fmt.Fprintf(w, "   run:     faultlab run %s\n", strings.Join(c.Reproduce, " "))
	}
	if len(c.Refs) > 0 {
		fmt.Fprintf(w, "   see:     %s\n", strings.Join(c.Refs, ", "))
	}
	if c.Kind == "scenario" {
		v := c.Version
		if v == "" {
			v = "VERSION"
		}
		fmt.Fprintf(w, "   run it:  faultlab show %s; faultlab run %s --mooncake-version %s --timeline t.html\n", c.Name, c.Name, v)
	}
}
