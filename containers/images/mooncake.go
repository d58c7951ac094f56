package images

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// WheelPackage is the CPU-only Mooncake wheel on PyPI.
const WheelPackage = "mooncake-transfer-engine-non-cuda"

// VenvDir is where the Mooncake venv lives inside the image.
const VenvDir = "/opt/mc"

// Mooncake builds (or finds) faultlab/mooncake:<version>: the base plus a
// venv with the wheel and its dependencies installed offline from a
// wheelhouse downloaded on the host (the build itself has no network).
func (b *Builder) Mooncake(ctx context.Context, version string) (Image, error) {
	unlock, err := b.lock()
	if err != nil {
		return Image{}, err
	}
	defer unlock()
	return b.mooncake(ctx, version)
}

// MooncakeWithout builds (or finds) faultlab/mooncake:<version>-without-<pkgs>:
// the Mooncake image with Debian packages purged, a host that lacks a
// library the wheel links but does not ship (topology.missing_libs; the
// field's slim images, Mooncake#1619). --force-depends: nothing the image
// runs besides Mooncake needs them.
func (b *Builder) MooncakeWithout(ctx context.Context, version string, packages []string) (Image, error) {
	if len(packages) == 0 {
		return Image{}, fmt.Errorf("images: MooncakeWithout %s: no packages", version)
	}
	unlock, err := b.lock()
	if err != nil {
		return Image{}, err
	}
	defer unlock()
	mc, err := b.mooncake(ctx, version)
	if err != nil {
		return Image{}, err
	}
	start := time.Now()
	pkgs := append([]string(nil), packages...)
	sortStrings(pkgs)
	dockerfile := fmt.Sprintf("FROM %s\nRUN dpkg --purge --force-depends %s && ldconfig\n", mc.Ref, strings.Join(pkgs, " "))
	without := strings.Join(pkgs, "-")
	return b.ensure(ctx, start, RepoMooncake, version+"-without-"+without, hashOf(mc.Inputs, dockerfile),
		map[string]string{LabelImage: "mooncake-without-" + without, LabelVersion: version},
		func(ctx context.Context, ref string, labels map[string]string) error {
			return b.dockerBuild(ctx, ref, dockerfile, nil, labels)
		})
}

// Wheel is how a Mooncake version is installed in its image: a CUDA wheel
// (0.3.14 is one only) with the runtime from PyPI and the libraries the
// host builds (a stub libcuda) on LD_LIBRARY_PATH, as the real engine's
// installer does on the host (realengine.ImageWheel).
type Wheel struct {
	Package string   // "" = WheelPackage
	Extra   []string // more requirements installed with it
	// Files: the image's path → a file on the host.
	Files map[string]string
	// LibraryPath is LD_LIBRARY_PATH in the image.
	LibraryPath []string
}

func (b *Builder) mooncake(ctx context.Context, version string) (Image, error) {
	base, err := b.base(ctx)
	start := time.Now() // after the base: its time is its own
	if err != nil {
		return Image{}, err
	}
	var w Wheel
	if b.Wheels != nil {
		if w, err = b.Wheels(ctx, version); err != nil {
			return Image{}, err
		}
	}
	if w.Package == "" {
		w.Package = WheelPackage
	}
	reqs := append([]string{w.Package + "==" + version}, w.Extra...)
	whl, err := b.wheelhouse(ctx, version, reqs)
	if err != nil {
		return Image{}, err
	}
	files, parts, err := wheelFiles(whl)
	if err != nil {
		return Image{}, err
	}
	dockerfile := fmt.Sprintf(`FROM %s
COPY wheels /wheels
RUN python3 -m venv %[2]s && %[2]s/bin/pip install --no-cache-dir --no-index --find-links /wheels %[3]s
ENV PATH=%[2]s/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
`, base.Ref, VenvDir, strings.Join(reqs, " "))
	if len(w.Files) > 0 {
		for _, dst := range sortedKeys(w.Files) {
			h, err := fileHash(w.Files[dst])
			if err != nil {
				return Image{}, err
			}
			files["files"+dst] = w.Files[dst]
			parts = append(parts, dst+"="+h)
		}
		dockerfile += "COPY files/ /\n"
	}
	if len(w.LibraryPath) > 0 {
		dockerfile += "ENV LD_LIBRARY_PATH=" + strings.Join(w.LibraryPath, ":") + "\n"
	}
	inputs := hashOf(append([]string{base.Inputs, dockerfile}, parts...)...)
	return b.ensure(ctx, start, RepoMooncake, version, inputs, map[string]string{LabelImage: "mooncake", LabelVersion: version},
		func(ctx context.Context, ref string, labels map[string]string) error {
			return b.dockerBuild(ctx, ref, dockerfile, files, labels)
		})
}

// wheelhouse downloads the requirements and their dependencies once per
// version into the cache (binary wheels for this host's Python, which is
// the base's 3.11).
func (b *Builder) wheelhouse(ctx context.Context, version string, reqs []string) (string, error) {
	dir := filepath.Join(b.cacheDir(), "wheels", version)
	// .complete lists what was downloaded: other requirements download anew.
	done := filepath.Join(dir, ".complete")
	want := strings.Join(reqs, "\n") + "\n"
	if got, err := os.ReadFile(done); err == nil && string(got) == want {
		return dir, nil
	}
	_ = os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	py := b.Python
	if py == "" {
		py = "python3"
	}
	cmd := exec.CommandContext(ctx, py, "-m", "pip", "download", "--disable-pip-version-check", "--quiet",
		"--only-binary=:all:", "--python-version", "3.11", "--dest", dir)
	cmd.Args = append(cmd.Args, reqs...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("pip download %s: %w: %s", strings.Join(reqs, " "), err, lastLines(string(out), 6))
	}
	if err := os.WriteFile(done, []byte(want), 0o644); err != nil {
		return "", err
	}
	return dir, nil
}

// wheelFiles lists the wheelhouse as build-context entries and as hash parts
// (name and content hash of every wheel).
func wheelFiles(dir string) (map[string]string, []string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	files := map[string]string{}
	var parts []string
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".whl") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		h, err := fileHash(p)
		if err != nil {
			return nil, nil, err
		}
		files["wheels/"+e.Name()] = p
		parts = append(parts, e.Name()+"="+h)
	}
	if len(parts) == 0 {
		return nil, nil, fmt.Errorf("images: no wheels in %s", dir)
	}
	sort.Strings(parts)
	return files, parts, nil
}

func sortStrings(s []string) { sort.Strings(s) }
