package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mooncake-faultlab/faultlab/explain"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// showCmd prints a scenario's YAML: the catalog is embedded in the binary,
// so its scenarios are the examples anyone with only the binary has.
func showCmd() *cobra.Command {
	var cf catalogFlags
	var roles bool
	cmd := &cobra.Command{
		Use:   "show NAME",
		Short: "Print a catalog scenario's YAML (to copy and adapt)",
		Long: `Print a catalog scenario's YAML. On a terminal the addresses each run
assigns read as their roles (<the master's address>); redirected to a file
(or a pipe) the YAML is the runnable scenario, as faultlab run reads it.`,
		Example: "  faultlab show setup/master-down-refused > my-bug.yaml",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			catalog, err := cf.load()
			if err != nil {
				return usageErr(err)
			}
			for _, sc := range catalog {
				if sc.Name == args[0] {
					b, err := scenarios.SourceOf(sc)
					if err != nil {
						return err
					}
					out := cmd.OutOrStdout()
					if roles || isTerminal(out) {
						b = []byte("# addresses in <angle brackets> are each run's own; redirect to a file for the runnable YAML\n" + explain.Humanize(string(b)))
					}
					_, err = out.Write(b)
					return err
				}
			}
			return usageErr(fmt.Errorf("no scenario named %q in the catalog%s (see `faultlab list`)", args[0], suggestion(args[0], scenarios.Names(catalog))))
		},
	}
	cmd.Flags().StringVar(&cf.dir, "catalog", "", "load the catalog from this directory instead of the built-in one")
	cmd.Flags().BoolVar(&roles, "roles", false, "print addresses as their roles also when not on a terminal")
	return cmd
}

func suggestion(s string, options []string) string {
	if m := scenarios.Suggest(s, options); m != "" {
		return fmt.Sprintf(" (did you mean %q?)", m)
	}
	return ""
}
