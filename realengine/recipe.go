package realengine

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/mooncake-faultlab/faultlab/containers/images"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// Recipe is how one Mooncake version gets onto a CPU-only machine: which
// wheel, and what that wheel needs beyond it. The non-CUDA wheel needs
// nothing; a CUDA wheel may need the CUDA runtime from PyPI, Debian
// libraries and a stub libcuda.so.1 (no driver here).
type Recipe struct {
	Version string
	// Package is the PyPI distribution installed at Version.
	Package string
	// CUDARuntime is the pip requirement that ships the libcudart the
	// wheel links ("" = none needed; the non-CUDA wheels of 0.3.12.post1
	// and co. that link libcudart.so.12 are repaired by fixLibraries).
	CUDARuntime string
	// CUDARuntimeLib is CUDARuntime's lib dir under site-packages.
	CUDARuntimeLib string
	// StubLibcuda: build libcuda.so.1 from libcudaStubSource into the
	// install dir (every cu* function returns CUDA_ERROR_NO_DEVICE).
	StubLibcuda bool
	// Debian lists the Debian packages the wheel needs beyond
	// DebianPackages (ibverbs-providers: libmlx5.so.1).
	Debian []string
}

// Flavour says what kind of wheel the recipe installs, for people.
func (r Recipe) Flavour() string {
	switch {
	case r.Package == Package:
		return "non-CUDA wheel"
	case r.StubLibcuda:
		return "CUDA wheel + CUDA runtime (PyPI) + stub libcuda.so.1"
	default:
		return "CUDA wheel, loads as it is"
	}
}

// ImageReady reports whether the container images (containers/images)
// can carry this version: the non-CUDA wheel, or a CUDA wheel with its
// runtime from PyPI and the stub libcuda (ImageWheel).
func (r Recipe) ImageReady() bool {
	return (r.Package == Package && r.CUDARuntime == "") || (r.CUDARuntime != "" && r.StubLibcuda)
}

// cuda13Wheel: 0.3.14 was released (November 2026) as
// mooncake-transfer-engine-cuda13 only. Its _store/engine/mooncake_client
// ELFs link libcudart.so.13, libcuda.so.1 and libmlx5.so.1; with those
// present, `import mooncake.store` works and setup() against an absent
// master returns -1 after 20 attempts (checked 2026-12-01).
var cuda13Wheel = Recipe{
	Package:        "mooncake-transfer-engine-cuda13",
	CUDARuntime:    "nvidia-cuda-runtime==13.5.37",
	CUDARuntimeLib: "nvidia/cu13/lib",
	StubLibcuda:    true,
	Debian:         []string{"ibverbs-providers"},
}

// oldCUDAWheels are the CUDA wheels (mooncake-transfer-engine) from before
// the non-CUDA wheel that link no CUDA library and load as they are on a
// CPU-only machine: `pip download --no-deps`, venv, import and setup()
// against an absent master (2026-12-01; docs/ENGINES.md lists the others
// and why they are left out).
// Checked: 0.3.1, 0.3.2, 0.3.2.post1, 0.3.3.post1, 0.3.3.post2, 0.3.4,
// 0.3.4.post1 and 0.3.4.post2 return 1, 0.3.6.post1 returns -900. Left
// out: 0.3.0 (no wheel pip can install), 0.3.3 (an ASan build: "ASan
// runtime does not come first"), 0.3.5 and 0.3.6 (store.so imports torch:
// the process aborts), 0.3.7 and 0.3.7.post2 (link libtorch and
// libcudart.so.12; 0.3.7.post2 also libcuda.so.1).
var oldCUDAWheels = map[string]bool{
	"0.3.1": true, "0.3.2": true, "0.3.2.post1": true, "0.3.3.post1": true, "0.3.3.post2": true,
	"0.3.4": true, "0.3.4.post1": true, "0.3.4.post2": true,
	"0.3.6.post1": true,
}

// RecipeFor returns how the real engine installs version, or why it
// cannot.
func RecipeFor(version string) (Recipe, error) {
	v, err := mooncake.ParseVersion(version)
	if err != nil {
		return Recipe{}, err
	}
	switch {
	case v == mooncake.MustVersion("0.3.14"):
		r := cuda13Wheel
		r.Version = version
		return r, nil
	case v.AtLeast(FirstCPUWheel):
		return Recipe{Version: version, Package: Package}, nil
	case oldCUDAWheels[v.String()]:
		return Recipe{Version: version, Package: "mooncake-transfer-engine"}, nil
	}
	return Recipe{}, fmt.Errorf("Mooncake %s has no wheel recipe for a CPU-only machine: %s starts at %s; of the older CUDA wheels only %s load here (docs/ENGINES.md)",
		version, Package, FirstCPUWheel, oldCUDAList())
}

func oldCUDAList() string {
	s := ""
	for _, k := range sortedKeys(oldCUDAWheels) {
		if s != "" {
			s += ", "
		}
		s += k
	}
	return s
}

// applyRecipe installs what the recipe needs beyond the wheel: Debian
// packages, the CUDA runtime from PyPI, the stub libcuda.so.1; each lib
// dir goes into in.LibraryPath (LD_LIBRARY_PATH of every Mooncake
// process), each step into in.Fixes.
func applyRecipe(ctx context.Context, log *slog.Logger, l Layout, r Recipe, opts InstallOptions, in *Installed) error {
	if len(r.Debian) > 0 {
		if err := opts.withApt(func() error { return ensureDebian(ctx, log, opts.SystemPackages, r.Debian) }); err != nil {
			return fmt.Errorf("real engine install %s: %w", l.Version, err)
		}
		in.Fixes = append(in.Fixes, "Debian: "+strings.Join(r.Debian, " "))
	}
	if r.StubLibcuda {
		dir := filepath.Join(l.Dir, "stub")
		if err := buildLibcudaStub(ctx, dir); err != nil {
			return fmt.Errorf("real engine install %s: %w", l.Version, err)
		}
		in.LibraryPath = append(in.LibraryPath, dir)
		in.Fixes = append(in.Fixes, fmt.Sprintf("stub libcuda.so.1 (%d cu* functions, CUDA_ERROR_NO_DEVICE) in %s", len(libcudaStubFuncs), dir))
	}
	if r.CUDARuntime != "" {
		if err := pipInstall(ctx, l, opts, r.CUDARuntime); err != nil {
			return err
		}
		dirs, _ := filepath.Glob(filepath.Join(l.Venv(), "lib", "python3*", "site-packages", r.CUDARuntimeLib))
		if len(dirs) == 0 {
			return fmt.Errorf("real engine install %s: %s installed but %s not found", l.Version, r.CUDARuntime, r.CUDARuntimeLib)
		}
		in.LibraryPath = append(in.LibraryPath, dirs[0])
		in.Fixes = append(in.Fixes, fmt.Sprintf("pip install %s, LD_LIBRARY_PATH=%s", r.CUDARuntime, dirs[0]))
	}
	return nil
}

// ensureDebian installs the Debian packages that dpkg does not list as
// installed (apt when allowed and root; else an error naming the command).
func ensureDebian(ctx context.Context, log *slog.Logger, apt bool, pkgs []string) error {
	var missing []string
	for _, p := range pkgs {
		out, err := run(ctx, nil, "dpkg-query", "-W", "-f=${Status}", p)
		if err != nil || !strings.Contains(string(out), "install ok installed") {
			missing = append(missing, p)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	cmd := "apt-get install -y " + strings.Join(missing, " ")
	if !apt || os.Geteuid() != 0 {
		return fmt.Errorf("missing Debian packages %s; run: %s", strings.Join(missing, ", "), cmd)
	}
	log.Info("real engine: installing Debian packages", "packages", missing)
	env := []string{"DEBIAN_FRONTEND=noninteractive"}
	args := append([]string{"install", "-y", "--no-install-recommends"}, missing...)
	if out, err := run(ctx, env, "apt-get", args...); err != nil {
		if out, err := run(ctx, env, "apt-get", "update"); err != nil {
			return fmt.Errorf("apt-get update: %w\n%s", err, tail(out, 5))
		}
		if out2, err := run(ctx, env, "apt-get", args...); err != nil {
			return fmt.Errorf("%s: %w\n%s\n%s", cmd, err, tail(out, 3), tail(out2, 5))
		}
	}
	return nil
}

// ImageReady reports whether version has a recipe the container images
// can carry (the non-CUDA wheel, no library fix).
func ImageReady(version string) bool {
	r, err := RecipeFor(version)
	// A non-CUDA wheel the installer repaired on the host (0.3.12.post1's
	// libcudart.so.12) has no image recipe yet.
	return err == nil && r.ImageReady() && (r.CUDARuntime != "" || !NeedsLibraryFix(version))
}

// ImageWheel is how version is installed in its container image
// (images.Builder.Wheels): the recipe's wheel, with the CUDA runtime from
// PyPI and the stub libcuda on LD_LIBRARY_PATH where the host install has
// them.
func ImageWheel(ctx context.Context, version string) (images.Wheel, error) {
	r, err := RecipeFor(version)
	if err != nil {
		return images.Wheel{}, err
	}
	if !r.ImageReady() {
		return images.Wheel{}, fmt.Errorf("real engine: Mooncake %s is installed from %s (%s), which no container image carries", version, r.Package, r.Flavour())
	}
	w := images.Wheel{Package: r.Package}
	if r.StubLibcuda {
		cache, err := CacheDir()
		if err != nil {
			return w, err
		}
		// Built once: every container world's launch asks for its image.
		dir := filepath.Join(cache, "images", "stub-libcuda")
		if src, err := os.ReadFile(filepath.Join(dir, "libcuda_stub.c")); err != nil || string(src) != libcudaStubSource() || !exists(filepath.Join(dir, "libcuda.so.1")) {
			if err := buildLibcudaStub(ctx, dir); err != nil {
				return w, err
			}
		}
		w.Files = map[string]string{imageStubDir + "/libcuda.so.1": filepath.Join(dir, "libcuda.so.1")}
		w.LibraryPath = append(w.LibraryPath, imageStubDir)
	}
	if r.CUDARuntime != "" {
		w.Extra = []string{r.CUDARuntime}
		w.LibraryPath = append(w.LibraryPath, images.VenvDir+"/lib/python3.11/site-packages/"+r.CUDARuntimeLib)
	}
	return w, nil
}

// imageStubDir holds the stub libcuda.so.1 in an image.
const imageStubDir = "/opt/mc-stub"

// LatestImageReady is the newest release the container images can carry
// (0.3.14: its cuda13 wheel with the runtime and the stub libcuda).
func LatestImageReady() string {
	for i := len(mooncake.Versions) - 1; i >= 0; i-- {
		if r, err := RecipeFor(mooncake.Versions[i]); err == nil && r.ImageReady() {
			return mooncake.Versions[i]
		}
	}
	return ""
}
