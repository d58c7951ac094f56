package realengine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
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
	// SysInfiniband overrides SysInfiniband, where the host's RDMA devices
	// are listed (tests).
	SysInfiniband string
	// Containers runs every party in its own container (testcontainers-go,
	// images from containers/images): `faultlab run --containers`.
	Containers bool
	// Build runs a build installed by InstallBuild (`faultlab versions
	// add NAME`) instead of the release: every world at the build's
	// Derives release uses the build's venv.
	Build string
}

// Name is the real engine's CLI name.
const Name = "real"

// ContainersNoEtcd is why a container world skips etcd metadata.
const ContainersNoEtcd = "container worlds have no etcd image yet (etcd metadata runs in processes only)"

// NeedsRDMAHardware is the catalog label of scenarios that need an RDMA
// NIC: the real engine skips them on machines without one (CI).
const NeedsRDMAHardware = "needs-rdma-hw"

func init() {
	engine.Register(engine.Registration{Name: Name,
		Doc: "real Mooncake wheels and SGLang's own code, faults through toxiproxy and signals",
		New: func(o engine.Options) engine.Engine {
			return New(Options{Logger: o.Logger, Containers: o.Containers, Build: o.Build})
		},
		Caps: engine.Reference | engine.Containers | engine.RealSGLang | engine.LocalBuild})
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
	var (
		l   Layout
		in  Installed
		err error
	)
	if e.opts.Build != "" {
		if l, in, err = e.installedBuild(version); err != nil {
			return l, in, err
		}
	} else {
		if err := HasCPUWheel(version); err != nil {
			return Layout{}, Installed{}, fmt.Errorf("real engine: %w", err)
		}
		if l, err = LayoutFor(e.opts.CacheDir, version); err != nil {
			return l, Installed{}, err
		}
		if in, err = l.ReadInstalled(); err != nil {
			return l, in, fmt.Errorf("real engine: Mooncake %s not installed in %s; run `make real-engine` (or `faultlab install real --versions %s`)", version, l.Dir, version)
		}
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
	// gflags prints the help and exits 1. A mooncake_master 0.3.4 once
	// stalled in that exit for 20 s (.ci/run 2026-12-02, under load) with
	// its help cut at a stdio buffer's end: line-buffered (stdbuf), every
	// line is out before the exit, and a stalled one is killed after 5 s
	// (the help takes ≈ 50 ms).
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cmd := []string{bin, "--help"}
	if sb, err := exec.LookPath("stdbuf"); err == nil {
		cmd = append([]string{sb, "-oL", "-eL"}, cmd...)
	}
	out, _ := run(cctx, env, cmd[0], cmd[1:]...)
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

// NeedsGPUReason is why the real engine skips a node with GPUs: it runs
// Mooncake's CPU-only wheel and SGLang without CUDA, on hosts without a
// GPU, so GPU memory registration (nvidia_peermem, dma-buf) runs on the
// models only (label needs-gpu).
func NeedsGPUReason(node string) string {
	return fmt.Sprintf("node %s: needs a GPU: the real engine runs Mooncake's CPU-only wheel and SGLang without CUDA; GPU memory registration (nvidia_peermem, dma-buf) runs on sim and fake", node)
}

// SysInfiniband lists the host's RDMA devices (an RNIC or rdma_rxe), one
// directory per ibverbs device name.
const SysInfiniband = "/sys/class/infiniband"

// hostRDMA lists the RDMA device names of this host (nil: none).
func hostRDMA(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// rdmaSupported says why a party that wants RNICs cannot run on this host:
// "" when every device it names is one of the host's and it declares no
// limit the model imposes but real hardware cannot (max_mr, max_mr_size,
// max_reg_bytes, leaked MKEYs, a broken port).
func rdmaSupported(party string, want []engine.RDMADevice, dir string, host []string) string {
	if len(want) == 0 {
		return ""
	}
	if len(host) == 0 {
		return fmt.Sprintf("%s: needs RDMA hardware: %s lists no device on this host", party, dir)
	}
	for _, d := range want {
		switch {
		case !slices.Contains(host, d.Name):
			return fmt.Sprintf("%s: needs RDMA device %s; this host has %s", party, d.Name, strings.Join(host, ","))
		case d.MaxMR > 0, d.MaxMRSize > 0, d.MaxRegBytes > 0, d.LeakedMRs > 0, d.Broken, !d.PortActive():
			return fmt.Sprintf("%s: RDMA device %s declares limits (max_mr, max_mr_size, max_reg_bytes, leaked_mrs, broken, port_state) the real engine cannot impose on a real RNIC", party, d.Name)
		}
	}
	return ""
}

// InContainers: every party of its worlds runs in a container.
func (e *Engine) InContainers() bool { return e.opts.Containers }

// Launch implements engine.Engine.
func (e *Engine) Launch(ctx context.Context, spec engine.WorldSpec) (engine.World, error) {
	l, in, err := e.install(ctx, spec.Version)
	if err != nil {
		return nil, err
	}
	if r, err := RecipeFor(spec.Version); e.opts.Containers && err == nil && !r.ImageReady() {
		return nil, engine.Unsupportedf("Mooncake %s is installed from %s (%s), which no container image carries", spec.Version, r.Package, r.Flavour())
	}
	if e.opts.Containers && !ImageReady(spec.Version) {
		return nil, engine.Unsupportedf("Mooncake %s needs a library fix (%s) the container image does not carry yet", spec.Version, in.LDLibraryPath(""))
	}
	if why := spec.NeedsContainers(); why != "" && !e.opts.Containers {
		return nil, engine.Unsupportedf("%s", why)
	}
	if e.opts.Containers && spec.Metadata == "etcd" {
		// etcd is Debian's /usr/bin/etcd on the host; the images do not
		// carry it yet.
		return nil, engine.Unsupportedf("%s", ContainersNoEtcd)
	}
	if err := e.supported(spec); err != nil {
		return nil, err
	}
	if spec.Libstdcxx != "" {
		// The wheels' loader failure was measured against a stand-in
		// libstdc++ by hand (REAL-FINDINGS §145); a run does not swap
		// the host's.
		return nil, engine.Unsupportedf("topology libstdcxx: the real engine's processes load this host's libstdc++ (GLIBCXX_3.4.30 and later); it runs on sim")
	}
	if len(spec.MissingLibs) > 0 {
		switch {
		case spec.Master != nil && spec.Master.HA:
			return nil, engine.Unsupportedf("topology missing_libs: the real engine does not withhold libraries from an HA master's processes")
		case e.opts.Containers:
			if _, err := debianPackagesOf(spec.MissingLibs); err != nil {
				return nil, err
			}
		default:
			if err := checkMissingLibs(spec.MissingLibs); err != nil {
				return nil, err
			}
		}
	}
	if spec.Client != nil {
		if _, err := l.Binary("mooncake_client"); err != nil {
			return nil, engine.Unsupportedf("Mooncake %s has no mooncake_client (standalone mode came with 0.3.8)", spec.Version)
		}
	}
	ml, min := l, in
	if mv := spec.MasterVersion(); mv != spec.Version {
		if spec.Master.HA || e.opts.Containers {
			return nil, engine.Unsupportedf("topology.master.mooncake_version %s: the real engine runs a skewed master only as one plain process (not HA, not in containers)", mv)
		}
		if ml, min, err = e.install(ctx, mv); err != nil {
			return nil, fmt.Errorf("real engine: the master's release: %w", err)
		}
	}
	if (spec.MetadataPortHeld() || spec.MetricsPortHeld()) && e.opts.Containers {
		return nil, engine.Unsupportedf("real engine: a held topology.master port: a port is held on the host, not in a container world's network namespaces")
	}
	w, err := newWorld(ctx, e, spec, l, in)
	if err != nil {
		return nil, err
	}
	w.ml, w.min = ml, min
	err = w.holdAtStart()
	if err == nil {
		err = w.launch(ctx)
	}
	if err != nil {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		return nil, errors.Join(err, w.Close(cctx))
	}
	// Time zero is the world ready, as in sim (whose servers start in no
	// virtual time): counted from Launch, mooncake_master's ~1 s start
	// moved every fault ~1 s earlier against the steps than in the model
	// (sim,real seed 30288: a refuse at 6 s ended a metadata DELETE at
	// 4.6 s of setup on real, at 6.0 s in sim).
	w.start.restart()
	return w, nil
}

// supported rejects topologies this host cannot provide.
func (e *Engine) supported(spec engine.WorldSpec) error {
	dir := e.sysInfiniband()
	host := hostRDMA(dir)
	if spec.Client != nil {
		if why := rdmaSupported("mooncake_client", spec.Client.RDMA, dir, host); why != "" {
			return engine.Unsupportedf("%s", why)
		}
	}
	if spec.Master != nil {
		if why := rdmaSupported("mooncake_master", spec.Master.RDMA, dir, host); why != "" {
			return engine.Unsupportedf("%s", why)
		}
	}
	for _, n := range spec.Nodes {
		if n.GPU != nil {
			return engine.Unsupportedf("%s", NeedsGPUReason(n.Name))
		}
		if n.NPU != nil {
			// label needs-ascend: no NPU here, and no wheel carries USE_ASCEND_DIRECT.
			return engine.Unsupportedf("node %s: needs an Ascend NPU: the real engine has none, and no Mooncake wheel carries USE_ASCEND_DIRECT; the Ascend direct transport runs on sim", n.Name)
		}
		if why := rdmaSupported("node "+n.Name, n.RDMA, dir, host); why != "" {
			return engine.Unsupportedf("%s", why)
		}
		if why := portRangeSupported(n, e.opts.Containers); why != "" {
			return engine.Unsupportedf("%s", why)
		}
		if n.CapIPCLock && !hasCap(capIPCLock) {
			return engine.Unsupportedf("node %s: cap_ipc_lock needs a run that has CAP_IPC_LOCK (root); this one has not", n.Name)
		}
		if n.HugepagesBytes > 0 {
			return engine.Unsupportedf("node %s: needs a HugeTLB pool of %d bytes; the real engine does not reserve host hugepages", n.Name, n.HugepagesBytes)
		}
		if n.RAMBytes > 0 {
			return engine.Unsupportedf("node %s: ram %d bytes: the real engine runs on this machine's RAM and cannot set a host's", n.Name, n.RAMBytes)
		}
	}
	switch spec.Metadata {
	case "P2PHANDSHAKE", "http":
	case "etcd":
		if _, err := etcdPath(); err != nil {
			return err
		}
	case "master":
		if spec.Master == nil {
			return fmt.Errorf("real engine: metadata \"master\" needs a master in the topology")
		}
	default:
		return fmt.Errorf("real engine: metadata %q: want P2PHANDSHAKE, http, master or etcd", spec.Metadata)
	}
	if spec.Client != nil && spec.Master == nil {
		return fmt.Errorf("real engine: mooncake_client needs a master in the topology")
	}
	return nil
}

const capIPCLock = 14

// hasCap reports whether this process has the capability in its effective
// set (/proc/self/status CapEff).
func hasCap(bit uint) bool {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "CapEff:"); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && n&(1<<bit) != 0
		}
	}
	return false
}

func (e *Engine) sysInfiniband() string {
	if e.opts.SysInfiniband != "" {
		return e.opts.SysInfiniband
	}
	return SysInfiniband
}

// writeDriver puts driver.py (and sglang_driver.py, which imports it) in
// dir and returns driver.py's path.
func writeDriver(dir string) (string, error) {
	for name, b := range map[string][]byte{"driver.py": driverPy, sglangDriverFile: sglangDriverPy} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return "", fmt.Errorf("real engine: write %s: %w", name, err)
		}
	}
	return filepath.Join(dir, "driver.py"), nil
}

// NeedsLibraryFix reports whether the installed version runs only with the
// installer's LD_LIBRARY_PATH fix (0.3.12.post1: libcudart), which container
// images lack.
func NeedsLibraryFix(version string) bool {
	l, err := LayoutFor("", version)
	if err != nil {
		return false
	}
	in, err := l.ReadInstalled()
	return err == nil && in.LDLibraryPath("") != ""
}
