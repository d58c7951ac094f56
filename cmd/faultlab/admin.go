package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mooncake-faultlab/faultlab/fakeengine"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/realengine"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// installCmd is `faultlab install <engine>`: an engine's dependencies.
func installCmd() *cobra.Command {
	install := &cobra.Command{Use: "install", Short: "Install an engine's dependencies"}
	real := realengine.NewInstallCommand(logger(true), catalogVersions)
	// An unknown version is the user's mistake (exit 2), refused before
	// any venv is made.
	real.PreRunE = func(cmd *cobra.Command, _ []string) error {
		vs, _ := cmd.Flags().GetString("versions")
		for _, v := range strings.Split(vs, ",") {
			if v = strings.TrimSpace(v); v != "" && v != "catalog" {
				if _, err := mooncake.ProfileFor(v); err != nil {
					return usageErr(fmt.Errorf("--versions: %w", err))
				}
			}
		}
		return nil
	}
	install.AddCommand(real, realengine.NewInstallSGLangCommand(logger(true)))
	return install
}

// serveCmd is `faultlab serve fake`: the fake engine's servers as processes.
func serveCmd() *cobra.Command {
	serve := &cobra.Command{Use: "serve", Short: "Run an engine's servers as standalone processes"}
	serve.AddCommand(fakeengine.NewServeCommand())
	return serve
}

// catalogVersions lists, newest first, the Mooncake versions the built-in
// catalog runs at on engine eng, leaving out scenarios labelled skip (they
// need what this machine cannot have).
func catalogVersions(eng, skip string) ([]string, error) {
	cat, err := scenarios.Catalog()
	if err != nil {
		return nil, err
	}
	need := map[string]bool{}
	for _, sc := range cat {
		if !sc.RunsOn(eng) || sc.HasLabel(skip) {
			continue
		}
		vs, _ := sc.Versions("")
		for _, v := range vs {
			need[v] = true
		}
	}
	var out []string
	for i := len(mooncake.Versions) - 1; i >= 0; i-- {
		if v := mooncake.Versions[i]; need[v] {
			out = append(out, v)
		}
	}
	return out, nil
}
