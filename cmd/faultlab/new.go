package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/mooncake-faultlab/faultlab/explain"
)

// schemaModeline makes editors with a YAML language server (VS Code's
// YAML extension, Neovim's yamlls, JetBrains) validate and complete the
// file against the scenario schema.
const schemaModeline = explain.SchemaModeline

func newCmd() *cobra.Command {
	var cf catalogFlags
	var fromLog, name, version, out string
	cmd := &cobra.Command{
		Use:   "new --from-log LOG",
		Short: "Write a scenario that reproduces a field log's error on the model, or say why none does",
		Long: `Draft a scenario for a field log and run it before writing it: the whole
scenario of the catalog cause faultlab explain ranks best (topology, config,
env, storage, SGLang side, faults, steps, remedy), with the settings the log
states applied (Mooncake version, MOONCAKE_PROTOCOL, MOONCAKE_DEVICE, segment
and buffer sizes, MOONCAKE_STANDALONE_STORAGE) and the log's outcome as
expect (its exception and code, and the Mooncake error lines it quotes).

The draft runs on the model (sim). It is written only when that run ends in
the log's error; otherwise new prints what the model did not reproduce and
writes nothing. A log that shows an error never gets expect: ok. When the
log does not state the Mooncake version, each of the scenario's versions is
tried, newest first. The file starts with a modeline for editors' YAML
language server (the JSON Schema).

` + newExitHelp,
		Example: "  faultlab new --from-log sglang.log --name field/my-bug -o my-bug.yaml\n  faultlab run ./my-bug.yaml --engine sim,real --emit-expect",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := readLog(cmd, []string{fromLog})
			if err != nil {
				return err
			}
			fc, err := loadField(cmd, cf, version)
			if err != nil {
				return err
			}
			dr := explain.DraftFromLog(cmd.Context(), fc.catalog, fc.fp, fc.model, log, explain.DraftOptions{Name: name, Version: version})
			if !dr.Written() {
				w := cmd.ErrOrStderr()
				fmt.Fprintln(w, "nothing written: no draft reproduced this log's error on the model.")
				for _, m := range dr.Missing {
					fmt.Fprintf(w, "  %s\n", explain.Humanize(m))
				}
				fmt.Fprintln(w, "faultlab explain LOG shows the causes; a scenario of your own can start from `faultlab show NAME`.")
				return silent(exitFail)
			}
			if out == "" || out == "-" {
				_, err = cmd.OutOrStdout().Write(dr.YAML)
				return err
			}
			if err := os.WriteFile(out, dr.YAML, 0o644); err != nil {
				return fmt.Errorf("write %s: %w", out, err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s (from %s @%s; its run on the model reproduces the log): run it with faultlab run %s\n", out, dr.Based, dr.Version, out)
			return nil
		},
	}
	cmd.Flags().StringVar(&fromLog, "from-log", "", "the field log (- = stdin)")
	cmd.Flags().StringVar(&name, "name", "field/from-log", "the new scenario's name")
	cmd.Flags().StringVar(&version, "mooncake-version", "", "the Mooncake version of the log (default: the one the log states, else the best match's)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the YAML to this file (default: stdout)")
	markOutput(cmd, "output", outputFile)
	cmd.Flags().StringVar(&cf.dir, "catalog", "", "load the catalog from this directory instead of the built-in one")
	_ = cmd.MarkFlagRequired("from-log")
	return cmd
}
