package realengine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// NewInstallCommand is `faultlab install real`: venvs with real Mooncake
// wheels. catalog lists the versions the scenario catalog needs on an
// engine, leaving out scenarios with the skip label (`--versions catalog`:
// asked for this engine and NeedsRDMAHardware); those without a CPU-only
// wheel are left out.
func NewInstallCommand(log *slog.Logger, catalog func(engine, skip string) ([]string, error)) *cobra.Command {
	var versions, cache string
	var ifReachable, sysPkgs bool
	var timeout time.Duration
	real := &cobra.Command{
		Use:   Name,
		Short: "Install real Mooncake wheels (one venv per version) for the real engine; idempotent",
		Example: "  faultlab install real --versions 0.3.13.post1,0.3.9\n" +
			"  faultlab install real --versions catalog\n" +
			"  make real-engine",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			vs := splitList(versions)
			if len(vs) == 1 && vs[0] == "catalog" {
				all, err := catalog(Name, NeedsRDMAHardware)
				if err != nil {
					return err
				}
				vs = slices.DeleteFunc(all, func(v string) bool { return HasCPUWheel(v) != nil })
				log.Info("real engine: the catalog's versions", "versions", vs)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			err := Install(ctx, vs, InstallOptions{CacheDir: cache, Logger: log, SystemPackages: sysPkgs})
			if ifReachable && errors.Is(err, ErrPyPIUnreachable) {
				fmt.Fprintf(cmd.ErrOrStderr(), "real engine not installed (PyPI unreachable); real-engine specs will skip:\n%v\n", err)
				return nil
			}
			return err
		},
	}
	real.Flags().StringVar(&versions, "versions", mooncake.Latest, "comma-separated Mooncake versions, or \"catalog\": every version a catalog scenario runs at on this engine (RDMA-hardware scenarios aside) that has a wheel recipe (faultlab versions list)")
	real.Flags().StringVar(&cache, "cache", "", "cache dir (default $FAULTLAB_CACHE or ~/.cache/faultlab)")
	real.Flags().BoolVar(&ifReachable, "if-reachable", false, "exit 0 with a notice when PyPI cannot be reached")
	real.Flags().BoolVar(&sysPkgs, "system-packages", true, "apt-get install missing Debian packages (libibverbs1 libnuma1 libcurl4; ibverbs-providers for 0.3.14) when root")
	real.Flags().DurationVar(&timeout, "timeout", 15*time.Minute, "overall time limit")
	return real
}

// NewInstallSGLangCommand is `faultlab install sglang`: venvs with SGLang's
// own code for `faultlab run --engine real --sglang real`.
func NewInstallSGLangCommand(log *slog.Logger) *cobra.Command {
	var versions, cache string
	var ifReachable bool
	var timeout time.Duration
	c := &cobra.Command{
		Use:   "sglang",
		Short: "Install real SGLang (one pinned venv per version: about 6 GB, 0.8 GB for 0.5.14/0.5.16 sharing 0.5.17's torch) for --sglang real; idempotent",
		Example: "  faultlab install sglang --versions " + strings.Join(SGLangVersions(), ",") + "\n" +
			"  make real-engine",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			err := InstallSGLang(ctx, splitList(versions), InstallOptions{CacheDir: cache, Logger: log})
			if ifReachable && errors.Is(err, ErrPyPIUnreachable) {
				fmt.Fprintf(cmd.ErrOrStderr(), "real SGLang not installed (PyPI unreachable); --sglang real specs will skip:\n%v\n", err)
				return nil
			}
			return err
		},
	}
	c.Flags().StringVar(&versions, "versions", LatestSGLang(), "comma-separated SGLang versions ("+strings.Join(SGLangVersions(), ", ")+")")
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
