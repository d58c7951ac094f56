package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/explain"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// modelEngine is the first registered virtual-time engine: explain and new
// run the catalog on it to know what each scenario's run prints
// (milliseconds for the whole catalog).
func modelEngine() (engine.Engine, error) {
	for _, r := range engine.Registered() {
		if e := r.New(logger(false)); !scenarios.Wall(e) {
			return e, nil
		}
	}
	return nil, fmt.Errorf("no virtual-time engine linked into this program")
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

// explainLog ranks the catalog against log.
func explainLog(cmd *cobra.Command, cf catalogFlags, log, version string) (explain.Result, error) {
	if version != "" {
		if _, err := mooncake.ProfileFor(version); err != nil {
			return explain.Result{}, usageErr(fmt.Errorf("--mooncake-version: %w", err))
		}
	}
	catalog, err := cf.load()
	if err != nil {
		return explain.Result{}, usageErr(err)
	}
	model, err := modelEngine()
	if err != nil {
		return explain.Result{}, err
	}
	fp := explain.Fingerprint(cmd.Context(), catalog, model, version)
	return explain.Explain(catalog, fp, log, version)
}

func explainCmd() *cobra.Command {
	var cf catalogFlags
	var version string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "explain [LOGFILE|-]",
		Short: "Which catalog scenarios end in the error of a field log, ranked, with cause and verified remedy",
		Long: `Read an SGLang log (a file, or stdin for - or no argument; a pasted error
message is enough) and list the catalog scenarios that end in that exact
outcome (exception message and code, or process death) at that Mooncake
version, best first: each with its cause, the log lines that tell the causes
apart (marked + when the log has them), and the remedy the scenario verified.

Ranking: a scenario that expects a line the log lacks, or forbids one it has,
comes last; then by the rarity across the catalog of the lines the log has
that the scenario expects or prints, minus those it does not account for.

` + explainExitHelp,
		Example: `  faultlab explain sglang.log --mooncake-version 0.3.13.post1
  echo "RuntimeError: Failed to setup Mooncake store, error code: -1" | faultlab explain --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			log, err := readLog(cmd, args)
			if err != nil {
				return err
			}
			res, err := explainLog(cmd, cf, log, version)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(res); err != nil {
					return err
				}
			} else {
				printExplain(out, res, version)
			}
			if len(res.Candidates) == 0 {
				return silent(exitNothing)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&cf.dir, "catalog", "", "load the catalog from this directory instead of the built-in one")
	cmd.Flags().StringVar(&version, "mooncake-version", "", "the Mooncake version the log came from (default: try each scenario's versions)")
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"candidates": [{"scenario", "cause", "matched_logs", "remedy", ...}]}, best first`)
	return cmd
}

func printExplain(w io.Writer, res explain.Result, version string) {
	// Scenario texts hold placeholders ({{master}}); a person gets words.
	say := scenarios.DescribePlaceholders
	at := ""
	if version != "" {
		at = " at Mooncake " + version
	}
	if len(res.Candidates) == 0 {
		fmt.Fprintf(w, "no catalog scenario ends in an outcome this log shows%s.\n"+
			"Turn it into one: faultlab new --from-log LOG > my-bug.yaml\n", at)
		return
	}
	fmt.Fprintf(w, "%d catalog scenarios end in what this log shows%s, best first:\n", len(res.Candidates), at)
	for i, c := range res.Candidates {
		tie := ""
		if c.Tied {
			tie = "  (the log cannot tell this from the one above)"
		}
		fmt.Fprintf(w, "\n%d. %s @%s  score %.2f%s\n", i+1, c.Scenario, c.Version, c.Score, tie)
		fmt.Fprintf(w, "   ends in: %s\n", say(c.Outcome))
		fmt.Fprintf(w, "   cause:   %s\n", say(c.Cause))
		if len(c.Telltale) > 0 || len(c.ModelLogs) > 0 {
			fmt.Fprintf(w, "   lines that tell it apart (+ in your log, - not):\n")
			for _, l := range c.Telltale {
				mark := "-"
				if slices.Contains(c.MatchedLogs, l) {
					mark = "+"
				}
				fmt.Fprintf(w, "     %s %s\n", mark, say(l))
			}
			for _, l := range c.ModelLogs {
				fmt.Fprintf(w, "     + %s   (modelled)\n", short(say(l), 100))
			}
		}
		for _, l := range c.Contradicting {
			fmt.Fprintf(w, "     ! %s   (this cause never prints it)\n", say(l))
		}
		fmt.Fprintf(w, "   remedy:  %s\n", say(c.Remedy))
		fmt.Fprintf(w, "   see:     faultlab show %s; faultlab run %s --mooncake-version %s --timeline t.html\n", c.Scenario, c.Scenario, c.Version)
	}
}
