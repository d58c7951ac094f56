package realengine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// BuildSpec is a Mooncake build that runs under a name of its own as the
// release it derives from (`faultlab versions add`): a wheel a developer
// built from a branch, or a release the models do not know yet.
type BuildSpec struct {
	Name    string
	Derives string
	// Wheel is a wheel file; "" = Package==Name from PyPI.
	Wheel   string
	Package string
}

// BuildLayout is where a build lives: <cache>/mooncake/builds/<name>, apart
// from the releases.
func BuildLayout(cache, name string) (Layout, error) {
	if cache == "" {
		c, err := CacheDir()
		if err != nil {
			return Layout{}, err
		}
		cache = c
	}
	return Layout{Version: name, Dir: filepath.Join(cache, "mooncake", "builds", name)}, nil
}

// installedBuild is Engine.install for Options.Build.
func (e *Engine) installedBuild(version string) (Layout, Installed, error) {
	l, err := BuildLayout(e.opts.CacheDir, e.opts.Build)
	if err != nil {
		return l, Installed{}, err
	}
	in, err := l.ReadInstalled()
	if err != nil {
		return l, in, fmt.Errorf("real engine: build %s not installed in %s; run `faultlab versions add %s ...`", e.opts.Build, l.Dir, e.opts.Build)
	}
	if in.Derives != version {
		return l, in, fmt.Errorf("real engine: build %s runs as Mooncake %s, not %s", e.opts.Build, in.Derives, version)
	}
	return l, in, nil
}

// recipeForBuild guesses what a build's wheel needs from its
// distribution name: the cuda13 wheel's recipe, a CUDA wheel as it is, or
// nothing (non-CUDA).
func recipeForBuild(b BuildSpec) Recipe {
	pkg := b.Package
	if b.Wheel != "" {
		// name-version-...whl; PEP 427 escapes '-' in the name as '_'.
		base := filepath.Base(b.Wheel)
		name, _, _ := strings.Cut(base, "-")
		pkg = strings.ReplaceAll(name, "_", "-")
	}
	if pkg == "" {
		pkg = Package
	}
	r := Recipe{Version: b.Name, Package: pkg}
	if pkg == cuda13Wheel.Package {
		r = cuda13Wheel
		r.Version = b.Name
	}
	return r
}

// InstallBuild makes a build runnable by an engine with Options.Build:
// a venv under BuildLayout with the wheel, what its recipe needs, and a
// marker naming the release it derives from. A build already installed is
// replaced (a branch's wheel changes under the same name).
func InstallBuild(ctx context.Context, b BuildSpec, opts InstallOptions) (err error) {
	log := opts.logger()
	if b.Wheel != "" {
		if _, err := os.Stat(b.Wheel); err != nil {
			return fmt.Errorf("real engine install build %s: %w", b.Name, err)
		}
		if b.Wheel, err = filepath.Abs(b.Wheel); err != nil {
			return err
		}
	}
	cache, unlock, err := lockCache(ctx, opts, "mooncake")
	if err != nil {
		return fmt.Errorf("real engine install build %s: %w", b.Name, err)
	}
	defer unlock()
	l, err := BuildLayout(cache, b.Name)
	if err != nil {
		return err
	}
	start := time.Now()
	defer func() {
		if err != nil {
			if rerr := os.RemoveAll(l.Dir); rerr != nil {
				err = errors.Join(err, fmt.Errorf("remove half-made %s: %w", l.Dir, rerr))
			}
		}
	}()
	if err := ensureSystemLibs(ctx, log, opts.SystemPackages); err != nil {
		return err
	}
	if err := freshVenv(ctx, opts, l.Dir, l.Venv(), 0); err != nil {
		return fmt.Errorf("real engine install build %s: %w", b.Name, err)
	}
	r := recipeForBuild(b)
	req := b.Wheel
	if req == "" {
		req = r.Package + "==" + b.Name
	}
	log.Info("real engine: pip install build", "build", b.Name, "derives", b.Derives, "req", req, "recipe", r.Flavour())
	if err := pipInstall(ctx, l, opts, req); err != nil {
		return err
	}
	in := Installed{Package: r.Package, Version: b.Name, Derives: b.Derives}
	if err := applyRecipe(ctx, log, l, r, opts, &in); err != nil {
		return err
	}
	if err := fixLibraries(ctx, log, l, opts, &in); err != nil {
		return err
	}
	// The wheel's version is whatever the branch says; the driver must
	// report the same.
	py, ver, err := importVersion(ctx, l, in)
	if err != nil {
		return err
	}
	in.Python, in.WheelVersion = py, ver
	in.InstallSecs = secs(time.Since(start))
	if err := writeMarker(l.Marker(), in); err != nil {
		return fmt.Errorf("real engine install build %s: %w", b.Name, err)
	}
	log.Info("real engine: build installed", "build", b.Name, "wheel_version", ver, "secs", in.InstallSecs, "fixes", in.Fixes)
	return nil
}
