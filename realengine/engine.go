package realengine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// Options configure the real engine.
type Options struct {
	// CacheDir overrides $FAULTLAB_CACHE / ~/.cache/faultlab.
	CacheDir string
	Logger   *slog.Logger
	// StartTimeout bounds each server's readiness (default 30s).
	StartTimeout time.Duration
	// Containers runs every party in its own container (testcontainers-go,
	// images from containers/images): `faultlab run --containers`.
	Containers bool
}

// Name is the real engine's CLI name.
const Name = "real"

func init() {
	engine.Register(engine.Registration{Name: Name,
		Doc: "real Mooncake wheels and SGLang's own code, faults through toxiproxy and signals",
		New: func(log *slog.Logger) engine.Engine { return New(Options{Logger: log}) }})
}

// Engine is the "real" engine.
type Engine struct {
	opts Options

	mu    sync.Mutex
	flags map[string]map[string]bool // version -> mooncake_master flag names
	libs  map[string]error           // version -> ldd verdict
}

var _ engine.Engine = (*Engine)(nil)

// New returns the real engine.
func New(opts Options) *Engine {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 30 * time.Second
	}
	return &Engine{opts: opts, flags: map[string]map[string]bool{}, libs: map[string]error{}}
}

// Name implements engine.Engine.
func (e *Engine) Name() string { return Name }

// Available implements engine.Engine: the version's venv must be installed
// and its binaries must find their shared libraries.
func (e *Engine) Available(ctx context.Context, version string) error {
	_, _, err := e.install(ctx, version)
	return err
}

// install returns the layout and marker of an installed version, or an
// error saying what is missing and how to get it.
func (e *Engine) install(ctx context.Context, version string) (Layout, Installed, error) {
	if runtime.GOOS != "linux" {
		return Layout{}, Installed{}, fmt.Errorf("real engine: needs Linux (Mooncake wheels are manylinux), this is %s", runtime.GOOS)
	}
	if _, err := mooncake.ProfileFor(version); err != nil {
		return Layout{}, Installed{}, fmt.Errorf("real engine: %w", err)
	}
	if err := installable(version); err != nil {
		return Layout{}, Installed{}, fmt.Errorf("real engine: %w", err)
	}
	l, err := LayoutFor(e.opts.CacheDir, version)
	if err != nil {
		return l, Installed{}, err
	}
	in, err := l.ReadInstalled()
	if err != nil {
		return l, in, fmt.Errorf("real engine: Mooncake %s not installed in %s; run `make real-engine` (or `faultlab install real --versions %s`)", version, l.Dir, version)
	}
	// mooncake_client exists from 0.3.8 only; Launch asks for it when the
	// topology has one.
	if _, err := l.Binary("mooncake_master"); err != nil {
		return l, in, err
	}
	e.mu.Lock()
	libErr, checked := e.libs[version]
	e.mu.Unlock()
	if !checked {
		missing, err := lddMissing(ctx, l, in.LDLibraryPath(""))
		switch {
		case err != nil:
			libErr = err
		case len(missing) > 0:
			var pkgs []string
			for _, so := range missing {
				if p, ok := systemLibs[so]; ok {
					pkgs = append(pkgs, p)
				}
			}
			libErr = fmt.Errorf("real engine: Mooncake %s cannot load %s; run `apt-get install -y %s` (or `make real-engine`)",
				version, strings.Join(missing, ", "), strings.Join(pkgs, " "))
		}
		e.mu.Lock()
		e.libs[version] = libErr
		e.mu.Unlock()
	}
	return l, in, libErr
}

// masterFlags lists the flags this version's mooncake_master knows, from
// its --help (gflags prints "    -name (" per flag).
func (e *Engine) masterFlags(ctx context.Context, l Layout, in Installed) (map[string]bool, error) {
	e.mu.Lock()
	f, ok := e.flags[l.Version]
	e.mu.Unlock()
	if ok {
		return f, nil
	}
	bin, err := l.Binary("mooncake_master")
	if err != nil {
		return nil, err
	}
	var env []string
	if p := in.LDLibraryPath(""); p != "" {
		env = []string{"LD_LIBRARY_PATH=" + p}
	}
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out, _ := run(cctx, env, bin, "--help") // gflags exits 1 after --help
	f = map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "-") {
			if name, _, ok := strings.Cut(t[1:], " ("); ok && !strings.Contains(name, " ") {
				f[name] = true
			}
		}
	}
	if !f["rpc_port"] && !f["port"] {
		return nil, fmt.Errorf("real engine: cannot read mooncake_master %s flags from --help:\n%s", l.Version, tail(out, 5))
	}
	e.mu.Lock()
	e.flags[l.Version] = f
	e.mu.Unlock()
	return f, nil
}

// hasRDMA reports whether this host exposes any RDMA device.
func hasRDMA() bool {
	ents, err := os.ReadDir("/sys/class/infiniband")
	return err == nil && len(ents) > 0
}

// Launch implements engine.Engine.
func (e *Engine) Launch(ctx context.Context, spec engine.WorldSpec) (engine.World, error) {
	l, in, err := e.install(ctx, spec.Version)
	if err != nil {
		return nil, err
	}
	if err := e.supported(spec); err != nil {
		return nil, err
	}
	if spec.Client != nil {
		if _, err := l.Binary("mooncake_client"); err != nil {
			return nil, engine.Unsupportedf("Mooncake %s has no mooncake_client (standalone mode came with 0.3.8)", spec.Version)
		}
	}
	w, err := newWorld(ctx, e, spec, l, in)
	if err != nil {
		return nil, err
	}
	if err := w.launch(ctx); err != nil {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		return nil, errors.Join(err, w.Close(cctx))
	}
	return w, nil
}

// supported rejects topologies this host cannot provide.
func (e *Engine) supported(spec engine.WorldSpec) error {
	for _, n := range spec.Nodes {
		if len(n.RDMA) > 0 {
			if hasRDMA() {
				return engine.Unsupportedf("node %s: needs RDMA devices %s; the real engine does not map scenario RNICs onto this host's", n.Name, rdmaNames(n.RDMA))
			}
			return engine.Unsupportedf("node %s: needs RDMA hardware: this host has no RDMA NIC", n.Name)
		}
		if n.HugepagesBytes > 0 {
			return engine.Unsupportedf("node %s: needs a HugeTLB pool of %d bytes; the real engine does not reserve host hugepages", n.Name, n.HugepagesBytes)
		}
	}
	switch spec.Metadata {
	case "P2PHANDSHAKE", "http":
	case "master":
		if spec.Master == nil {
			return fmt.Errorf("real engine: metadata \"master\" needs a master in the topology")
		}
	default:
		return fmt.Errorf("real engine: metadata %q: want P2PHANDSHAKE, http or master", spec.Metadata)
	}
	if spec.Client != nil && spec.Master == nil {
		return fmt.Errorf("real engine: mooncake_client needs a master in the topology")
	}
	return nil
}

func rdmaNames(ds []engine.RDMADevice) string {
	names := make([]string, len(ds))
	for i, d := range ds {
		names[i] = d.Name
	}
	return strings.Join(names, ",")
}

// writeDriver puts driver.py in dir.
func writeDriver(dir string) (string, error) {
	p := filepath.Join(dir, "driver.py")
	if err := os.WriteFile(p, driverPy, 0o644); err != nil {
		return "", fmt.Errorf("real engine: write driver: %w", err)
	}
	return p, nil
}
