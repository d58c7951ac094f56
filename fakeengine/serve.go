package fakeengine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/mooncake-faultlab/faultlab/fakeengine/servers"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/sim/kernel"
	"github.com/mooncake-faultlab/faultlab/sim/master"
	"github.com/mooncake-faultlab/faultlab/sim/metadata"
	"github.com/mooncake-faultlab/faultlab/sim/mlog"
)

// ServeConfig configures standalone fake servers.
type ServeConfig struct {
	// Master is the master's listen address ("" = no master).
	Master string
	// Metadata is the HTTP metadata server's listen address ("" = none).
	Metadata string
	// Version is the Mooncake version the servers behave as.
	Version string
	// MasterFlags are mooncake_master gflags (client_ttl, ...).
	MasterFlags map[string]string
	Seed        uint64
	Logger      *slog.Logger
	// Ready, if set, receives the bound addresses once listening.
	Ready func(master, metadata string)
}

// Serve runs the fake master and/or HTTP metadata server in wall time
// (unscaled) until ctx is done, then closes them.
func Serve(ctx context.Context, cfg ServeConfig) error {
	if cfg.Master == "" && cfg.Metadata == "" {
		return errors.New("fake serve: nothing to serve (give --master and/or --metadata)")
	}
	p, err := mooncake.ProfileFor(cfg.Version)
	if err != nil {
		return fmt.Errorf("fake serve: %w", err)
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	var closers []func() error
	defer func() {
		for i := len(closers) - 1; i >= 0; i-- {
			_ = closers[i]()
		}
	}()
	var masterAddr, metaAddr string
	if cfg.Master != "" {
		mc, err := master.ConfigFor(p, cfg.MasterFlags)
		if err != nil {
			return fmt.Errorf("fake serve: master flags: %w", err)
		}
		logf := mlog.Func(func(level, text string) { logger.Info(text, "source", "master", "level", level) })
		m := master.New(mc, mooncakeClock{start: time.Now(), s: 1}, logf, kernel.Stream(cfg.Seed, "master"))
		var mu sync.Mutex
		srv := servers.NewMasterServer(&mu, func() master.Service { return m }, logger)
		if err := srv.Listen(ctx, cfg.Master); err != nil {
			return fmt.Errorf("fake serve: %w", err)
		}
		closers = append(closers, srv.Close)
		masterAddr = srv.Addr()
		logger.Info("fake master listening", "addr", masterAddr, "version", cfg.Version)
	}
	if cfg.Metadata != "" {
		srv, err := servers.ServeHTTP(ctx, cfg.Metadata, servers.NewMetadataHandler(metadata.New(p.MetadataSameValueOK)))
		if err != nil {
			return fmt.Errorf("fake serve: %w", err)
		}
		closers = append(closers, srv.Close)
		metaAddr = srv.Addr()
		logger.Info("fake HTTP metadata server listening", "url", "http://"+metaAddr+"/metadata")
	}
	if cfg.Ready != nil {
		cfg.Ready(masterAddr, metaAddr)
	}
	<-ctx.Done()
	return nil
}

// NewServeCommand is `serve fake --master ADDR --metadata ADDR
// --version V --flag k=v...`: the fake servers as standalone processes.
// It stops on SIGINT/SIGTERM.
func NewServeCommand() *cobra.Command {
	var cfg ServeConfig
	var flags []string
	cmd := &cobra.Command{
		Use:   "fake",
		Short: "Serve the fake engine's master and/or HTTP metadata server on real sockets",
		Example: "  faultlab serve fake --master 127.0.0.1:50051 --metadata 127.0.0.1:8080 --version 0.3.13.post1\n" +
			"  (wire protocol: docs/ENGINES.md, \"fake\")",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg.MasterFlags = map[string]string{}
			for _, f := range flags {
				k, v, ok := strings.Cut(f, "=")
				if !ok {
					return fmt.Errorf("--master-flag %q: want name=value", f)
				}
				cfg.MasterFlags[strings.TrimLeft(k, "-")] = v
			}
			cfg.Logger = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))
			cfg.Ready = func(m, md string) {
				if m != "" {
					fmt.Fprintf(cmd.OutOrStdout(), "master %s\n", m)
				}
				if md != "" {
					fmt.Fprintf(cmd.OutOrStdout(), "metadata http://%s/metadata\n", md)
				}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return Serve(ctx, cfg)
		},
	}
	cmd.Flags().StringVar(&cfg.Master, "master", "", "master listen address (host:port); empty = no master")
	cmd.Flags().StringVar(&cfg.Metadata, "metadata", "", "HTTP metadata server listen address (host:port); empty = none")
	cmd.Flags().StringVar(&cfg.Version, "version", mooncake.Latest, "Mooncake version to behave as")
	cmd.Flags().StringArrayVar(&flags, "master-flag", nil, "mooncake_master gflag name=value (repeatable)")
	cmd.Flags().Uint64Var(&cfg.Seed, "seed", 1, "seed of the master's allocation choices")
	return cmd
}
