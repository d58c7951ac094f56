package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mooncake-faultlab/faultlab/explore"
	"github.com/spf13/cobra"
)

func mergeCmd() *cobra.Command {
	var out, junit, corpus string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "merge REPORT.json...",
		Short: "Join the JSON reports of explore shards (findings and corpus de-duplicated)",
		Long: `Join the reports that 'faultlab explore --shard i/n --report FILE' wrote: counts and
generated hashes add up, a failure found by several shards is kept once (lowest
seed), and with --corpus the kept findings' scenario files are copied there
(looked up at their recorded path, else next to their report). Exits 1 when the
merged report has findings.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMerge(cmd.OutOrStdout(), args, out, junit, corpus, asJSON)
		},
	}
	cmd.Flags().StringVar(&out, "report", "", "write the merged JSON report here")
	cmd.Flags().StringVar(&junit, "junit", "", "write the merged JUnit XML here")
	cmd.Flags().StringVar(&corpus, "corpus", "", "copy the kept findings' scenario files into this directory")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the merged JSON report on stdout")
	markOutput(cmd, "report", outputFile)
	markOutput(cmd, "junit", outputFile)
	markOutput(cmd, "corpus", outputDir)
	return cmd
}

func runMerge(stdout io.Writer, files []string, out, junit, corpus string, asJSON bool) error {
	var reps []explore.Report
	where := map[string]string{} // finding file → report dir
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return usageErr(fmt.Errorf("merge: %w", err))
		}
		var r explore.Report
		if err := json.Unmarshal(b, &r); err != nil {
			return usageErr(fmt.Errorf("merge: %s: %w", f, err))
		}
		for _, x := range r.Findings {
			where[x.File] = filepath.Dir(f)
		}
		reps = append(reps, r)
	}
	m, err := explore.Merge(reps)
	if err != nil {
		return usageErr(err)
	}
	if corpus != "" {
		if err := os.MkdirAll(corpus, 0o755); err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		for i, x := range m.Findings {
			if x.File == "" {
				continue
			}
			src := x.File
			if _, err := os.Stat(src); err != nil {
				src = filepath.Join(where[x.File], filepath.Base(x.File))
			}
			b, err := os.ReadFile(src)
			if err != nil {
				return fmt.Errorf("merge: finding of seed %d: %w", x.Seed, err)
			}
			dst := filepath.Join(corpus, filepath.Base(x.File))
			if err := os.WriteFile(dst, b, 0o644); err != nil {
				return fmt.Errorf("merge: %w", err)
			}
			m.Findings[i].File = dst
		}
	}
	if err := outputReport(stdout, m, out, junit, asJSON); err != nil {
		return err
	}
	if m.Found() {
		return errVerdict
	}
	return nil
}
