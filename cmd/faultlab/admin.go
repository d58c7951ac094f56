package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/mooncake-faultlab/faultlab/fakeengine"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/realengine"
)

// installCmd is `faultlab install real`: venvs with real Mooncake wheels.
func installCmd() *cobra.Command {
	install := &cobra.Command{Use: "install", Short: "Install an engine's dependencies"}
	var versions, cache string
	var ifReachable, sysPkgs bool
	var timeout time.Duration
	real := &cobra.Command{
		Use:   "real",
		Short: "Install real Mooncake wheels (one venv per version) for the real engine; idempotent",
		Example: "  faultlab install real --versions 0.3.13.post1,0.3.9\n" +
			"  make real-engine",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			vs := splitList(versions)
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			err := realengine.Install(ctx, vs, realengine.InstallOptions{CacheDir: cache, Logger: logger(true), SystemPackages: sysPkgs})
			if ifReachable && errors.Is(err, realengine.ErrPyPIUnreachable) {
				fmt.Fprintf(cmd.ErrOrStderr(), "real engine not installed (PyPI unreachable); real-engine specs will skip:\n%v\n", err)
				return nil
			}
			return err
		},
	}
	real.Flags().StringVar(&versions, "versions", mooncake.Latest, "comma-separated Mooncake versions")
	real.Flags().StringVar(&cache, "cache", "", "cache dir (default $FAULTLAB_CACHE or ~/.cache/faultlab)")
	real.Flags().BoolVar(&ifReachable, "if-reachable", false, "exit 0 with a notice when PyPI cannot be reached")
	real.Flags().BoolVar(&sysPkgs, "system-packages", true, "apt-get install missing Debian libraries (libibverbs1 libnuma1 libcurl4) when root")
	real.Flags().DurationVar(&timeout, "timeout", 15*time.Minute, "overall time limit")
	install.AddCommand(real, installSGLangCmd())
	return install
}

// installSGLangCmd is `faultlab install sglang`: venvs with SGLang's own code
// for `faultlab run --engine real --sglang real`.
func installSGLangCmd() *cobra.Command {
	var versions, cache string
	var ifReachable bool
	var timeout time.Duration
	c := &cobra.Command{
		Use:   "sglang",
		Short: "Install real SGLang (one pinned venv per version, about 6 GB each) for --sglang real; idempotent",
		Example: "  faultlab install sglang --versions " + strings.Join(realengine.SGLangVersions(), ",") + "\n" +
			"  make real-engine",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			err := realengine.InstallSGLang(ctx, splitList(versions), realengine.InstallOptions{CacheDir: cache, Logger: logger(true)})
			if ifReachable && errors.Is(err, realengine.ErrPyPIUnreachable) {
				fmt.Fprintf(cmd.ErrOrStderr(), "real SGLang not installed (PyPI unreachable); --sglang real specs will skip:\n%v\n", err)
				return nil
			}
			return err
		},
	}
	c.Flags().StringVar(&versions, "versions", realengine.LatestSGLang(), "comma-separated SGLang versions ("+strings.Join(realengine.SGLangVersions(), ", ")+")")
	c.Flags().StringVar(&cache, "cache", "", "cache dir (default $FAULTLAB_CACHE or ~/.cache/faultlab)")
	c.Flags().BoolVar(&ifReachable, "if-reachable", false, "exit 0 with a notice when PyPI cannot be reached")
	c.Flags().DurationVar(&timeout, "timeout", 30*time.Minute, "overall time limit")
	return c
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// serveCmd is `faultlab serve fake`: the fake engine's servers as processes.
func serveCmd() *cobra.Command {
	serve := &cobra.Command{Use: "serve", Short: "Run an engine's servers as standalone processes"}
	serve.AddCommand(fakeengine.NewServeCommand())
	return serve
}
