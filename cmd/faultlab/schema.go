package main

import (
	"github.com/spf13/cobra"

	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// schemaCmd prints the scenario JSON Schema (the same bytes as the
// committed scenarios/scenario.schema.json).
func schemaCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of the scenario format (for editors and CI linters)",
		Long: `Print the JSON Schema (draft 2020-12) of scenario files, generated from the
Go types the loader decodes into. Editors with a YAML language server use it
through a first-line modeline:

  ` + schemaModeline,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			b, err := scenarios.JSONSchema()
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(b)
			return err
		},
	}
}
