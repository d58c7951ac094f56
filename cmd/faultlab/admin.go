package main

import (
	"github.com/spf13/cobra"

	"github.com/mooncake-faultlab/faultlab/fakeengine"
	"github.com/mooncake-faultlab/faultlab/realengine"
)

// installCmd is `faultlab install <engine>`: an engine's dependencies.
func installCmd() *cobra.Command {
	install := &cobra.Command{Use: "install", Short: "Install an engine's dependencies"}
	install.AddCommand(realengine.NewInstallCommand(logger(true)))
	return install
}

// serveCmd is `faultlab serve fake`: the fake engine's servers as processes.
func serveCmd() *cobra.Command {
	serve := &cobra.Command{Use: "serve", Short: "Run an engine's servers as standalone processes"}
	serve.AddCommand(fakeengine.NewServeCommand())
	return serve
}
