package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mooncake-faultlab/faultlab/fakeengine"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/realengine"
)

// installCmd is `faultlab install <engine>`: an engine's dependencies.
func installCmd() *cobra.Command {
	install := &cobra.Command{Use: "install", Short: "Install an engine's dependencies"}
	real := realengine.NewInstallCommand(logger(true))
	// An unknown version is the user's mistake (exit 2), refused before
	// any venv is made.
	real.PreRunE = func(cmd *cobra.Command, _ []string) error {
		vs, _ := cmd.Flags().GetString("versions")
		for _, v := range strings.Split(vs, ",") {
			if v = strings.TrimSpace(v); v != "" {
				if _, err := mooncake.ProfileFor(v); err != nil {
					return usageErr(fmt.Errorf("--versions: %w", err))
				}
			}
		}
		return nil
	}
	install.AddCommand(real)
	return install
}

// serveCmd is `faultlab serve fake`: the fake engine's servers as processes.
func serveCmd() *cobra.Command {
	serve := &cobra.Command{Use: "serve", Short: "Run an engine's servers as standalone processes"}
	serve.AddCommand(fakeengine.NewServeCommand())
	return serve
}
