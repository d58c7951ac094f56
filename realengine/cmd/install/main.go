// Command install prepares the real engine: one venv per Mooncake version
// with the non-CUDA wheel (see realengine.Install). Idempotent.
//
//	go run ./realengine/cmd/install --versions 0.3.13.post1,0.3.9 [--if-reachable]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/realengine"
)

func main() {
	versions := flag.String("versions", mooncake.Latest, "comma-separated Mooncake versions")
	cache := flag.String("cache", "", "cache dir (default $FAULTLAB_CACHE or ~/.cache/faultlab)")
	ifReachable := flag.Bool("if-reachable", false, "exit 0 with a notice when PyPI cannot be reached")
	sysPkgs := flag.Bool("system-packages", true, "apt-get install missing Debian libraries (libibverbs1 libnuma1 libcurl4) when root")
	timeout := flag.Duration("timeout", 15*time.Minute, "overall time limit")
	flag.Parse()

	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	var vs []string
	for _, v := range strings.Split(*versions, ",") {
		if v = strings.TrimSpace(v); v != "" {
			vs = append(vs, v)
		}
	}
	start := time.Now()
	err := realengine.Install(ctx, vs, realengine.InstallOptions{CacheDir: *cache, Logger: log, SystemPackages: *sysPkgs})
	switch {
	case err == nil:
		log.Info("real engine ready", "versions", vs, "secs", time.Since(start).Round(time.Millisecond).Seconds())
	case *ifReachable && errors.Is(err, realengine.ErrPyPIUnreachable):
		fmt.Fprintf(os.Stderr, "real engine not installed (PyPI unreachable); real-engine specs will skip:\n%v\n", err)
	default:
		fmt.Fprintf(os.Stderr, "real engine install failed: %v\n", err)
		os.Exit(1)
	}
}
