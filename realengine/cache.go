// Package realengine runs real Mooncake (mooncake_master, mooncake_client and
// mooncake.store from the pip wheel) behind the engine seam: an installer for
// per-version venvs, a launcher for the server processes, a Python driver per
// SGLang process, and toxiproxy in front of the master and metadata links.
package realengine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Package is the PyPI distribution the engine installs: the CPU-only wheel
// (no CUDA runtime to download; these machines have no GPU).
const Package = "mooncake-transfer-engine-non-cuda"

// FirstCPUWheel is the oldest version PyPI has a CPU-only wheel for.
// Older versions exist only as the CUDA wheel; RecipeFor lists those that
// load on a CPU-only machine (others import torch when store.so loads,
// checked with 0.3.5).
const FirstCPUWheel = "0.3.7.post1"

// HasCPUWheel says whether the real engine can install version on a
// CPU-only machine (RecipeFor: the non-CUDA wheel, or a CUDA wheel that
// loads here); the error says why not.
func HasCPUWheel(version string) error {
	_, err := RecipeFor(version)
	return err
}

// DebianPackages provide the shared libraries the wheels link but do not
// ship (store.so needs libibverbs and libnuma even for TCP-only use).
var DebianPackages = []string{"libibverbs1", "libnuma1", "libcurl4"}

// systemLibs maps the sonames the wheels need to the Debian package that has them.
var systemLibs = map[string]string{
	"libibverbs.so.1":      "libibverbs1",
	"libnuma.so.1":         "libnuma1",
	"libcurl.so.4":         "libcurl4",
	"libnl-3.so.200":       "libnl-3-200",
	"libnl-route-3.so.200": "libnl-route-3-200",
	"libmlx5.so.1":         "ibverbs-providers",
}

// CacheDir is $FAULTLAB_CACHE, else ~/.cache/faultlab.
func CacheDir() (string, error) {
	if d := os.Getenv("FAULTLAB_CACHE"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("real engine: cache dir: set $FAULTLAB_CACHE or $HOME: %w", err)
	}
	return filepath.Join(home, ".cache", "faultlab"), nil
}

// Layout is where one Mooncake version lives in the cache.
type Layout struct {
	Version string
	Dir     string // <cache>/mooncake/<version>
}

// LayoutFor returns the layout of version under cache ("" = CacheDir()).
func LayoutFor(cache, version string) (Layout, error) {
	if cache == "" {
		c, err := CacheDir()
		if err != nil {
			return Layout{}, err
		}
		cache = c
	}
	return Layout{Version: version, Dir: filepath.Join(cache, "mooncake", version)}, nil
}

// Venv is the virtualenv directory.
func (l Layout) Venv() string { return filepath.Join(l.Dir, "venv") }

// Python is the venv's interpreter.
func (l Layout) Python() string { return filepath.Join(l.Venv(), "bin", "python") }

// Marker is written last by Install; its presence means the version is usable.
func (l Layout) Marker() string { return filepath.Join(l.Dir, "installed.json") }

// PackageDir is site-packages/mooncake, found by globbing the venv's lib dir
// (the Python minor version is whatever created the venv).
func (l Layout) PackageDir() (string, error) {
	m, err := filepath.Glob(filepath.Join(l.Venv(), "lib", "python3*", "site-packages", "mooncake"))
	if err != nil || len(m) == 0 {
		return "", fmt.Errorf("real engine: Mooncake %s: no site-packages/mooncake under %s", l.Version, l.Venv())
	}
	return m[0], nil
}

// Binary is an ELF shipped inside the wheel (mooncake_master, mooncake_client).
// The console scripts of the same name are Python wrappers (0.3.9's forks a
// child), so the engine runs the ELF directly and owns exactly one process.
func (l Layout) Binary(name string) (string, error) {
	d, err := l.PackageDir()
	if err != nil {
		return "", err
	}
	p := filepath.Join(d, name)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("real engine: Mooncake %s ships no %s: %w", l.Version, name, err)
	}
	return p, nil
}

// Installed is the marker's content.
type Installed struct {
	Package string `json:"package"`
	Version string `json:"version"`
	Python  string `json:"python"`
	// LibraryPath lists directories to prepend to LD_LIBRARY_PATH for every
	// Mooncake process (e.g. nvidia-cuda-runtime-cu12's lib dir for wheels
	// that link libcudart.so.12).
	LibraryPath []string `json:"library_path,omitempty"`
	// Derives and WheelVersion are set for a build (InstallBuild): the
	// release it runs as, and the version its wheel reports.
	Derives      string `json:"derives,omitempty"`
	WheelVersion string `json:"wheel_version,omitempty"`
	// Fixes says, for people, what the installer did beyond pip install.
	Fixes       []string `json:"fixes,omitempty"`
	InstallSecs float64  `json:"install_secs"`
}

// ReadInstalled reads the marker; an error means "not installed".
func (l Layout) ReadInstalled() (Installed, error) {
	var in Installed
	b, err := os.ReadFile(l.Marker())
	if err != nil {
		return in, fmt.Errorf("real engine: Mooncake %s not installed in %s: %w", l.Version, l.Dir, err)
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return in, fmt.Errorf("real engine: Mooncake %s: corrupt %s: %w", l.Version, l.Marker(), err)
	}
	if in.Version != l.Version {
		return in, fmt.Errorf("real engine: %s records version %q, want %q", l.Marker(), in.Version, l.Version)
	}
	if _, err := os.Stat(l.Python()); err != nil {
		return in, fmt.Errorf("real engine: Mooncake %s: venv python missing: %w", l.Version, err)
	}
	return in, nil
}

// LDLibraryPath is the LD_LIBRARY_PATH value for Mooncake processes of this
// install, with base (the inherited value) appended.
func (in Installed) LDLibraryPath(base string) string {
	parts := append([]string(nil), in.LibraryPath...)
	if base != "" {
		parts = append(parts, base)
	}
	return strings.Join(parts, ":")
}

// RunsVersion is the version the driver must report: the wheel's own for
// a build, else the release's.
func (in Installed) RunsVersion() string {
	if in.WheelVersion != "" {
		return in.WheelVersion
	}
	return in.Version
}
