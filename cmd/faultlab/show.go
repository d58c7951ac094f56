package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// showCmd prints a scenario's YAML: the catalog is embedded in the binary,
// so its scenarios are the examples anyone with only the binary has.
func showCmd() *cobra.Command {
	var cf catalogFlags
	cmd := &cobra.Command{
		Use:     "show NAME",
		Short:   "Print a catalog scenario's YAML (to copy and adapt)",
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
					if _, err = cmd.OutOrStdout().Write(b); err != nil {
						return err
					}
					// stdout stays the file to copy; its placeholders are
					// explained to the person on stderr.
					for _, l := range scenarios.PlaceholdersIn(string(b)) {
						fmt.Fprintf(cmd.ErrOrStderr(), "# %s, filled in when the scenario runs\n", l)
					}
					return nil
				}
			}
			return usageErr(fmt.Errorf("no scenario named %q in the catalog%s (see `faultlab list`)", args[0], suggestion(args[0], scenarios.Names(catalog))))
		},
	}
	cmd.Flags().StringVar(&cf.dir, "catalog", "", "load the catalog from this directory instead of the built-in one")
	return cmd
}

func suggestion(s string, options []string) string {
	if m := scenarios.Suggest(s, options); m != "" {
		return fmt.Sprintf(" (did you mean %q?)", m)
	}
	return ""
}
