package realengine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrPyPIUnreachable: pip could not reach the package index. `make
// real-engine` (--if-reachable) turns it into a skip, not a failure.
var ErrPyPIUnreachable = errors.New("PyPI unreachable")

// InstallOptions configure Install.
type InstallOptions struct {
	// CacheDir overrides $FAULTLAB_CACHE / ~/.cache/faultlab.
	CacheDir string
	Logger   *slog.Logger
	// Python creates the venvs; default "python3" (the wheels need >= 3.10).
	Python string
	// SystemPackages: when a needed shared library is missing and we run as
	// root, apt-get install the Debian package that has it. Without it the
	// error names the apt-get command to run.
	SystemPackages bool
	// PipTimeout is pip's per-request socket timeout (default 20s); pip
	// retries once, so an unreachable index fails within about a minute.
	PipTimeout time.Duration
	// apt serializes apt-get among versions installing at once (dpkg's
	// lock); set by Install.
	apt *sync.Mutex
}

// withApt runs f holding the apt lock, when there is one.
func (o InstallOptions) withApt(f func() error) error {
	if o.apt != nil {
		o.apt.Lock()
		defer o.apt.Unlock()
	}
	return f()
}

func (o InstallOptions) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// Install makes each Mooncake version usable by the real engine: a venv
// under <cache>/mooncake/<version>/venv with the non-CUDA wheel, the system
// libraries it links, and a marker file written last. A version whose marker
// is present is left alone, so a second run does nothing.
func Install(ctx context.Context, versions []string, opts InstallOptions) error {
	log := opts.logger()
	if len(versions) == 0 {
		return fmt.Errorf("real engine install: no versions given")
	}
	for _, v := range versions {
		if err := HasCPUWheel(v); err != nil {
			return fmt.Errorf("real engine install: %w", err)
		}
	}
	cache, unlock, err := lockCache(ctx, opts, "mooncake")
	if err != nil {
		return fmt.Errorf("real engine install: %w", err)
	}
	defer unlock()

	var todo []string
	for _, v := range versions {
		l, _ := LayoutFor(cache, v)
		if in, err := l.ReadInstalled(); err == nil {
			log.Info("real engine: Mooncake already installed", "version", v, "dir", l.Dir, "fixes", in.Fixes)
			continue
		}
		todo = append(todo, v)
	}
	if len(todo) == 0 {
		return nil
	}
	if err := ensureSystemLibs(ctx, log, opts.SystemPackages); err != nil {
		return err
	}
	// Versions install side by side: each mostly waits on PyPI and on
	// unpacking, and one by one a cold cache outlasted the install's
	// timeout on a loaded 2-core CI machine (15 min for 13 releases).
	opts.apt = &sync.Mutex{}
	errs := make([]error, len(todo))
	sem := make(chan struct{}, installParallel)
	var wg sync.WaitGroup
	for i, v := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-ctx.Done():
				errs[i] = fmt.Errorf("real engine install %s: not started: %w", v, ctx.Err())
				return
			}
			l, _ := LayoutFor(cache, v)
			errs[i] = installVersion(ctx, log, l, opts)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// installParallel is how many versions install at once.
const installParallel = 3

func installVersion(ctx context.Context, log *slog.Logger, l Layout, opts InstallOptions) (err error) {
	start := time.Now()
	// A failed install (no such wheel, no network, interrupted) leaves
	// nothing behind: no half-made venv for the next run to trip over.
	defer func() {
		if err != nil && ctx.Err() != nil {
			// A killed pip or venv reads "signal: killed": say why.
			err = fmt.Errorf("%w (stopped: %w; the install's time limit is `faultlab install real --timeout`)", err, ctx.Err())
		}
		if err != nil {
			if rerr := os.RemoveAll(l.Dir); rerr != nil {
				err = errors.Join(err, fmt.Errorf("remove half-made %s: %w", l.Dir, rerr))
			}
		}
	}()
	log.Info("real engine: creating venv", "version", l.Version, "dir", l.Venv())
	if err := freshVenv(ctx, opts, l.Dir, l.Venv(), 0); err != nil {
		return fmt.Errorf("real engine install %s: %w", l.Version, err)
	}
	r, err := RecipeFor(l.Version)
	if err != nil {
		return fmt.Errorf("real engine install: %w", err)
	}
	log.Info("real engine: pip install", "package", r.Package+"=="+l.Version, "recipe", r.Flavour())
	t := time.Now()
	if err := pipInstall(ctx, l, opts, r.Package+"=="+l.Version); err != nil {
		return err
	}
	log.Info("real engine: pip install done", "version", l.Version, "secs", secs(time.Since(t)))

	in := Installed{Package: r.Package, Version: l.Version}
	if err := applyRecipe(ctx, log, l, r, opts, &in); err != nil {
		return err
	}
	if err := fixLibraries(ctx, log, l, opts, &in); err != nil {
		return err
	}
	pyVersion, err := verifyImport(ctx, l, in)
	if err != nil {
		return err
	}
	in.Python = pyVersion
	in.InstallSecs = secs(time.Since(start))
	if err := writeMarker(l.Marker(), in); err != nil {
		return fmt.Errorf("real engine install %s: %w", l.Version, err)
	}
	log.Info("real engine: Mooncake installed", "version", l.Version, "secs", in.InstallSecs, "fixes", in.Fixes)
	return nil
}

// freshVenv checks the interpreter, replaces dir (a directory without a
// marker is a half-finished install: start over), checks that at least
// needBytes are free there, and creates the venv.
func freshVenv(ctx context.Context, opts InstallOptions, dir, venv string, needBytes int64) error {
	py := opts.Python
	if py == "" {
		py = "python3"
	}
	if err := checkPython(ctx, py); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("clear %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if needBytes > 0 {
		if err := checkDisk(dir, needBytes); err != nil {
			return err
		}
	}
	if out, err := run(ctx, nil, py, "-m", "venv", venv); err != nil {
		return fmt.Errorf("%s -m venv: %w\n%s", py, err, tail(out, 10))
	}
	return nil
}

// writeMarker writes an install's marker file last and atomically.
func writeMarker(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// lockCache resolves the cache dir, creates <cache>/<sub> and takes its
// install lock, so concurrent installs do not build the same venv twice.
func lockCache(ctx context.Context, opts InstallOptions, sub string) (cache string, unlock func(), err error) {
	cache = opts.CacheDir
	if cache == "" {
		if cache, err = CacheDir(); err != nil {
			return "", nil, err
		}
	}
	root := filepath.Join(cache, sub)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", nil, err
	}
	unlock, err = lockFile(ctx, filepath.Join(root, ".install.lock"))
	if err != nil {
		return "", nil, err
	}
	return cache, unlock, nil
}

// unreachableRE matches pip's messages when the index cannot be reached.
var unreachableRE = regexp.MustCompile(`NewConnectionError|Max retries exceeded|Temporary failure in name resolution|Name or service not known|Network is unreachable|Connection refused|ConnectTimeoutError|ReadTimeoutError|No route to host|ProxyError`)

func pipInstall(ctx context.Context, l Layout, opts InstallOptions, reqs ...string) error {
	return pipRun(ctx, l.Python(), "real engine install "+l.Version, opts, reqs...)
}

// pipRun runs `python -m pip install args` and classifies a failure: an
// unreachable index wraps ErrPyPIUnreachable. what prefixes the error.
func pipRun(ctx context.Context, python, what string, opts InstallOptions, args ...string) error {
	to := opts.PipTimeout
	if to <= 0 {
		to = 20 * time.Second
	}
	full := append([]string{"-m", "pip", "install", "--disable-pip-version-check", "--no-input",
		"--retries", "1", "--timeout", strconv.Itoa(int(to.Seconds()))}, args...)
	out, err := run(ctx, nil, python, full...)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%s: pip install %s: %w", what, strings.Join(args, " "), ctx.Err())
	}
	if unreachableRE.Match(out) {
		return fmt.Errorf("%s: pip install %s: %w (check network/proxy settings or pip's index-url):\n%s",
			what, strings.Join(args, " "), ErrPyPIUnreachable, tail(out, 6))
	}
	return fmt.Errorf("%s: pip install %s: %w\n%s", what, strings.Join(args, " "), err, tail(out, 10))
}

func checkPython(ctx context.Context, py string) error {
	out, err := run(ctx, nil, py, "-c", "import sys; print('%d.%d' % sys.version_info[:2])")
	if err != nil {
		return fmt.Errorf("real engine install: %s not usable (Mooncake wheels need Python >= 3.10): %w", py, err)
	}
	var maj, min int
	if _, err := fmt.Sscanf(strings.TrimSpace(string(out)), "%d.%d", &maj, &min); err != nil || maj < 3 || (maj == 3 && min < 10) {
		return fmt.Errorf("real engine install: %s is Python %s; Mooncake wheels need >= 3.10", py, strings.TrimSpace(string(out)))
	}
	return nil
}

// ensureSystemLibs checks the Debian libraries every wheel links.
func ensureSystemLibs(ctx context.Context, log *slog.Logger, apt bool) error {
	missing, err := missingSystemLibs(ctx)
	if err != nil {
		return err
	}
	if len(missing) == 0 {
		return nil
	}
	return aptInstall(ctx, log, apt, missing)
}

func missingSystemLibs(ctx context.Context) ([]string, error) {
	ldconfig, err := exec.LookPath("ldconfig")
	if err != nil {
		ldconfig = "/sbin/ldconfig"
	}
	out, err := run(ctx, nil, ldconfig, "-p")
	if err != nil {
		return nil, fmt.Errorf("real engine install: %s -p: %w", ldconfig, err)
	}
	var missing []string
	for _, so := range sortedKeys(systemLibs) {
		if !bytes.Contains(out, []byte(so+" ")) {
			missing = append(missing, so)
		}
	}
	return missing, nil
}

// aptInstall installs the Debian packages that provide the sonames.
func aptInstall(ctx context.Context, log *slog.Logger, allowed bool, sonames []string) error {
	var pkgs []string
	for _, so := range sonames {
		if p, ok := systemLibs[so]; ok && !slices.Contains(pkgs, p) {
			pkgs = append(pkgs, p)
		}
	}
	cmd := "apt-get install -y " + strings.Join(pkgs, " ")
	if !allowed || os.Geteuid() != 0 {
		return fmt.Errorf("real engine install: missing system libraries %s; run: %s", strings.Join(sonames, ", "), cmd)
	}
	log.Info("real engine: installing Debian packages", "packages", pkgs)
	env := []string{"DEBIAN_FRONTEND=noninteractive"}
	if out, err := run(ctx, env, "apt-get", append([]string{"install", "-y", "--no-install-recommends"}, pkgs...)...); err != nil {
		log.Info("real engine: apt-get install failed, running apt-get update first", "err", err, "output", tail(out, 3))
		if out, err := run(ctx, env, "apt-get", "update"); err != nil {
			return fmt.Errorf("real engine install: apt-get update: %w\n%s", err, tail(out, 5))
		}
		if out, err := run(ctx, env, "apt-get", append([]string{"install", "-y", "--no-install-recommends"}, pkgs...)...); err != nil {
			return fmt.Errorf("real engine install: %s: %w\n%s", cmd, err, tail(out, 5))
		}
	}
	return nil
}

// cudaRuntime is the PyPI package that ships libcudart.so.12, for wheels
// that link it although they are "non-cuda" (Mooncake#3314).
const cudaRuntime = "nvidia-cuda-runtime-cu12"

// fixLibraries runs ldd on the wheel's ELF files and repairs what is
// missing: libcudart.so.12 from PyPI into the venv (LD_LIBRARY_PATH, no
// system change), Debian libraries with apt.
func fixLibraries(ctx context.Context, log *slog.Logger, l Layout, opts InstallOptions, in *Installed) error {
	for attempt := 0; attempt < 3; attempt++ {
		missing, err := lddMissing(ctx, l, in.LDLibraryPath(""))
		if err != nil {
			return err
		}
		if len(missing) == 0 {
			return nil
		}
		log.Info("real engine: wheel needs libraries it does not ship", "version", l.Version, "missing", missing)
		var sys []string
		for _, so := range missing {
			switch {
			case strings.HasPrefix(so, "libcudart.so.12"):
				if slices.ContainsFunc(in.Fixes, func(f string) bool { return strings.Contains(f, cudaRuntime) }) {
					return fmt.Errorf("real engine install %s: %s still missing after pip install %s", l.Version, so, cudaRuntime)
				}
				if err := pipInstall(ctx, l, opts, cudaRuntime); err != nil {
					return err
				}
				dirs, _ := filepath.Glob(filepath.Join(l.Venv(), "lib", "python3*", "site-packages", "nvidia", "cuda_runtime", "lib"))
				if len(dirs) == 0 {
					return fmt.Errorf("real engine install %s: %s installed but nvidia/cuda_runtime/lib not found", l.Version, cudaRuntime)
				}
				in.LibraryPath = append(in.LibraryPath, dirs[0])
				in.Fixes = append(in.Fixes, fmt.Sprintf("%s needs %s: pip install %s, LD_LIBRARY_PATH=%s", l.Version, so, cudaRuntime, dirs[0]))
			default:
				if _, ok := systemLibs[so]; !ok {
					return fmt.Errorf("real engine install %s: the wheel needs %s, which neither the wheel nor a known Debian package provides", l.Version, so)
				}
				sys = append(sys, so)
			}
		}
		if len(sys) > 0 {
			if err := opts.withApt(func() error { return aptInstall(ctx, log, opts.SystemPackages, sys) }); err != nil {
				return err
			}
		}
	}
	return fmt.Errorf("real engine install %s: libraries still missing after fixes", l.Version)
}

var notFoundRE = regexp.MustCompile(`(?m)^\s*(\S+) => not found`)

// lddMissing lists the sonames ldd cannot resolve for the wheel's ELFs.
func lddMissing(ctx context.Context, l Layout, ldPath string) ([]string, error) {
	dir, err := l.PackageDir()
	if err != nil {
		return nil, err
	}
	var files []string
	// store.so up to 0.3.13.post1; _store.cpython-*.so from 0.3.14 (the
	// mooncake.store package picks it).
	for _, n := range []string{"store.so", "_store.cpython-*.so", "engine.so", "mooncake_master", "mooncake_client"} {
		m, _ := filepath.Glob(filepath.Join(dir, n))
		files = append(files, m...)
	}
	var env []string
	if ldPath != "" {
		env = []string{"LD_LIBRARY_PATH=" + ldPath}
	}
	var missing []string
	for _, f := range files {
		out, _ := run(ctx, env, "ldd", f) // ldd exits non-zero on some ELFs; its text is what counts
		for _, m := range notFoundRE.FindAllSubmatch(out, -1) {
			if so := string(m[1]); !slices.Contains(missing, so) {
				missing = append(missing, so)
			}
		}
	}
	slices.Sort(missing)
	return missing, nil
}

// verifyImport imports mooncake.store in the venv and checks the version.
func verifyImport(ctx context.Context, l Layout, in Installed) (string, error) {
	py, ver, err := importVersion(ctx, l, in)
	if err != nil {
		return "", err
	}
	if ver != l.Version {
		return "", fmt.Errorf("real engine install %s: venv reports %s %s", l.Version, in.Package, ver)
	}
	return py, nil
}

// importVersion imports mooncake.store in the venv and returns the
// Python version and the installed distribution's.
func importVersion(ctx context.Context, l Layout, in Installed) (py, version string, err error) {
	pkg := in.Package
	if pkg == "" {
		pkg = Package
	}
	var env []string
	if p := in.LDLibraryPath(""); p != "" {
		env = []string{"LD_LIBRARY_PATH=" + p}
	}
	out, err := run(ctx, env, l.Python(), "-c",
		"import sys, importlib.metadata as m, mooncake.store; print(sys.version.split()[0], m.version('"+pkg+"'))")
	if err != nil {
		return "", "", fmt.Errorf("real engine install %s: import mooncake.store failed: %w\n%s", l.Version, err, tail(out, 8))
	}
	f := strings.Fields(lastLine(out))
	if len(f) != 2 {
		return "", "", fmt.Errorf("real engine install %s: venv reports %q", l.Version, lastLine(out))
	}
	return f[0], f[1], nil
}

// run executes a command in its own process group (killed whole on ctx
// cancel) and returns combined output.
func run(ctx context.Context, env []string, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := cmd.Run()
	return b.Bytes(), err
}

// lockFile takes an exclusive flock so concurrent installs (parallel test
// packages, two shells) do not build the same venv twice.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("real engine install: lock %s: %w", path, err)
	}
	for {
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
			return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); _ = f.Close() }, nil
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, fmt.Errorf("real engine install: waiting for %s (another install running): %w", path, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func lastLine(b []byte) string { return tail(b, 1) }

func secs(d time.Duration) float64 { return float64(d.Milliseconds()) / 1000 }

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
