package fakeengine

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/mooncake-faultlab/faultlab/fakeengine/servers"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/metadata"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/rng"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// ServeConfig configures standalone fake servers.
type ServeConfig struct {
	// Master is the master's listen address ("" = no master).
	Master string
	// Metadata is the HTTP metadata server's listen address ("" = none).
	Metadata string
	// MetadataKind is which metadata server Metadata is: "http" (the
	// wheel's Python server: any existing key is 400) or "master" (the
	// master's embedded one; same value → 200 from 0.3.12). "" = "http".
	MetadataKind string
	// MetadataEnv is the Python metadata server's own environment
	// (MC_METADATA_HTTP_TOKEN, 0.3.14).
	MetadataEnv map[string]string
	// Version is the Mooncake version the servers behave as.
	Version string
	// MasterFlags are mooncake_master gflags (client_ttl, ...).
	MasterFlags map[string]string
	Seed        uint64
	// Scale is the fake engine's timeout scale (0 or 1 = wall time): one
	// second of Mooncake time takes Scale seconds, as in a fake world.
	Scale  float64
	Logger *slog.Logger
	// ModelLog, if set, receives the master model's Mooncake log lines
	// (a fake world records them in its trace); else they go to Logger.
	ModelLog func(source, level, text string)
	// Ready, if set, receives the bound addresses once listening.
	Ready func(master, metadata string)
	// Control, if set, carries process actions ("stop master", "start
	// metadata", ...: stop | start | restart | pause | resume, then master
	// | metadata); each one's error (nil = done) goes to Ack. Serve returns
	// when Control is closed, as when ctx is done.
	Control <-chan string
	Ack     func(cmd string, err error)
}

// Serve runs the fake master and/or HTTP metadata server until ctx is done
// (or Control closes), then closes them.
func Serve(ctx context.Context, cfg ServeConfig) error {
	s, err := newServed(cfg)
	if err != nil {
		return err
	}
	defer s.close()
	if err := s.start(ctx, "master"); err != nil {
		return err
	}
	if err := s.start(ctx, "metadata"); err != nil {
		return err
	}
	if cfg.Ready != nil {
		cfg.Ready(s.masterAddr, s.metaAddr)
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case cmd, ok := <-cfg.Control:
			if !ok {
				return nil
			}
			err := s.do(ctx, cmd)
			if cfg.Ack != nil {
				cfg.Ack(cmd, err)
			}
		}
	}
}

// served are the servers of one Serve: the master (a fresh model at every
// start: mooncake_master keeps no state) and the metadata server (its
// store in memory: lost at a restart), each stopped, started, paused and
// resumed on its own port as a fake world does it (serverctl.go).
type served struct {
	cfg       ServeConfig
	profile   mooncake.Profile
	masterCfg master.Config
	logger    *slog.Logger
	start0    time.Time
	scale     scale
	mu        sync.Mutex // the master model's lock

	masterSrv  *servers.MasterServer
	masterAddr string
	masterUp   bool
	meta       *servers.MetadataHandler
	metaSrv    *servers.HTTPServer
	metaAddr   string
	metaUp     bool
}

func newServed(cfg ServeConfig) (*served, error) {
	if cfg.Master == "" && cfg.Metadata == "" {
		return nil, errors.New("fake serve: nothing to serve (give --master and/or --metadata)")
	}
	p, err := mooncake.ProfileFor(cfg.Version)
	if err != nil {
		return nil, fmt.Errorf("fake serve: %w", err)
	}
	s := &served{cfg: cfg, profile: p, logger: cfg.Logger, start0: time.Now(), scale: newScale(cfg.Scale)}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Master != "" {
		if s.masterCfg, err = master.ConfigFor(p, cfg.MasterFlags); err != nil {
			return nil, fmt.Errorf("fake serve: master flags: %w", err)
		}
	}
	switch cfg.MetadataKind {
	case "", "http":
		s.meta = servers.NewMetadataHandler(metadata.PythonAt(p, cfg.MetadataEnv))
	case "master":
		s.meta = servers.NewMetadataHandler(metadata.New(p.MetadataSameValueOK))
	default:
		return nil, fmt.Errorf("fake serve: metadata kind %q: want http or master", cfg.MetadataKind)
	}
	return s, nil
}

// do runs one control command: "<action> <server>".
func (s *served) do(ctx context.Context, cmd string) error {
	action, target, _ := strings.Cut(strings.TrimSpace(cmd), " ")
	if !slices.Contains([]string{"stop", "start", "restart", "pause", "resume"}, action) || target != "master" && target != "metadata" {
		return fmt.Errorf("fake serve: %q: want <stop|start|restart|pause|resume> <master|metadata>", cmd)
	}
	if target == "master" && s.cfg.Master == "" || target == "metadata" && s.cfg.Metadata == "" {
		return fmt.Errorf("fake serve: %q: %s is not served here", cmd, target)
	}
	if target == "master" && s.cfg.MetadataKind == "master" && s.cfg.Metadata != "" {
		// The embedded metadata server lives and dies with the master.
		if err := s.do(ctx, action+" metadata"); err != nil {
			return err
		}
	}
	switch action {
	case "stop":
		return s.stop(target)
	case "start":
		return s.start(ctx, target)
	case "restart":
		if err := s.stop(target); err != nil {
			return err
		}
		return s.start(ctx, target)
	}
	s.pause(target, action == "pause")
	return nil
}

func (s *served) start(ctx context.Context, target string) error {
	switch {
	case target == "master" && s.cfg.Master != "" && !s.masterUp:
		addr := s.cfg.Master
		if s.masterAddr != "" {
			addr = s.masterAddr // same port again
		}
		logf := mlog.Func(func(level, text string) {
			if s.cfg.ModelLog != nil {
				s.cfg.ModelLog("master", level, text)
				return
			}
			s.logger.Info(text, "source", "master", "level", level)
		})
		// A fresh model, its RNG stream named as a fake world's (newMaster).
		m := master.New(s.masterCfg, mooncakeClock{start: s.start0, s: s.scale}, logf, rng.Stream(s.cfg.Seed, "master#0"))
		srv := servers.NewMasterServer(&s.mu, func() master.Service { return m }, s.logger)
		if err := srv.Listen(ctx, addr); err != nil {
			return fmt.Errorf("fake serve: %w", err)
		}
		s.masterSrv, s.masterAddr, s.masterUp = srv, srv.Addr(), true
		s.logger.Info("fake master listening", "addr", s.masterAddr, "version", s.profile.Version)
	case target == "metadata" && s.cfg.Metadata != "" && !s.metaUp:
		addr := s.cfg.Metadata
		if s.metaAddr != "" {
			addr = s.metaAddr
			s.meta.Reset() // the store is in memory: a restart loses it
		}
		srv, err := servers.ServeHTTP(ctx, addr, s.meta)
		if err != nil {
			return fmt.Errorf("fake serve: %w", err)
		}
		s.metaSrv, s.metaAddr, s.metaUp = srv, srv.Addr(), true
		s.logger.Info("fake HTTP metadata server listening", "url", "http://"+s.metaAddr+"/metadata")
	}
	return nil
}

func (s *served) stop(target string) error {
	switch {
	case target == "master" && s.masterUp:
		s.masterUp = false
		s.masterSrv.Resume()
		return s.masterSrv.Close()
	case target == "metadata" && s.metaUp:
		s.metaUp = false
		s.meta.Resume()
		return s.metaSrv.Close()
	}
	return nil
}

func (s *served) pause(target string, on bool) {
	switch {
	case target == "master" && s.masterUp:
		if on {
			s.masterSrv.Pause()
		} else {
			s.masterSrv.Resume()
		}
	case target == "metadata":
		if on {
			s.meta.Pause()
		} else {
			s.meta.Resume()
		}
	}
}

func (s *served) close() {
	_ = s.stop("metadata")
	_ = s.stop("master")
}

// NewServeCommand is `serve fake --master ADDR --metadata ADDR
// --version V --flag k=v...`: the fake servers as standalone processes.
// It stops on SIGINT/SIGTERM. With --control (a fake world in containers)
// it reads process actions from stdin, one a line, and writes JSON lines
// to stdout: {"ready":{...}}, {"log":{...}} for each model log line,
// {"ack":cmd,"err":...} for each action; stdin's end stops it.
func NewServeCommand() *cobra.Command {
	var (
		cfg     ServeConfig
		flags   []string
		control bool
	)
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
			out := cmd.OutOrStdout()
			cfg.Ready = func(m, md string) {
				if m != "" {
					fmt.Fprintf(out, "master %s\n", m)
				}
				if md != "" {
					fmt.Fprintf(out, "metadata http://%s/metadata\n", md)
				}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if control {
				ev := &eventWriter{w: out}
				cfg.Ready = func(m, md string) { ev.write(serveEvent{Ready: &serveReady{Master: m, Metadata: md}}) }
				cfg.ModelLog = func(source, level, text string) {
					ev.write(serveEvent{Log: &serveLog{Source: source, Level: level, Text: text}})
				}
				cfg.Ack = func(c string, err error) {
					e := serveEvent{Ack: c}
					if err != nil {
						e.Err = err.Error()
					}
					ev.write(e)
				}
				cfg.Control = readLines(ctx, cmd.InOrStdin())
			}
			return Serve(ctx, cfg)
		},
	}
	cmd.Flags().StringVar(&cfg.Master, "master", "", "master listen address (host:port); empty = no master")
	cmd.Flags().StringVar(&cfg.Metadata, "metadata", "", "HTTP metadata server listen address (host:port); empty = none")
	cmd.Flags().StringVar(&cfg.MetadataKind, "metadata-kind", "http", "http (the wheel's metadata server) or master (the master's embedded one)")
	cmd.Flags().StringVar(&cfg.Version, "version", mooncake.Latest, "Mooncake version to behave as")
	cmd.Flags().StringArrayVar(&flags, "master-flag", nil, "mooncake_master gflag name=value (repeatable)")
	cmd.Flags().Uint64Var(&cfg.Seed, "seed", 1, "seed of the master's allocation choices")
	cmd.Flags().Float64Var(&cfg.Scale, "scale", 1, "timeout scale: one second of Mooncake time takes this many seconds (0 < s <= 1)")
	cmd.Flags().BoolVar(&control, "control", false, "read actions (\"stop master\", ...) from stdin; JSON lines on stdout")
	return cmd
}

// serveEvent is one JSON line of `serve fake --control`.
type serveEvent struct {
	Ready *serveReady `json:"ready,omitempty"`
	Log   *serveLog   `json:"log,omitempty"`
	Ack   string      `json:"ack,omitempty"`
	Err   string      `json:"err,omitempty"`
}

type serveReady struct {
	Master   string `json:"master,omitempty"`
	Metadata string `json:"metadata,omitempty"`
}

type serveLog struct {
	Source string `json:"source"`
	Level  string `json:"level"`
	Text   string `json:"text"`
}

// eventWriter writes whole lines from several goroutines.
type eventWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (e *eventWriter) write(ev serveEvent) {
	b, _ := json.Marshal(ev)
	e.mu.Lock()
	defer e.mu.Unlock()
	_, _ = e.w.Write(append(b, '\n'))
}

// readLines feeds r's lines to the returned channel, closed at r's end.
func readLines(ctx context.Context, r io.Reader) <-chan string {
	ch := make(chan string)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			select {
			case ch <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}
