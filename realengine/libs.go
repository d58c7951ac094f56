package realengine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// The hosts' missing native libraries (topology.missing_libs) on real. In
// processes: the install's LD_LIBRARY_PATH fix (Installed.LibraryPath: the
// CUDA runtime from PyPI, the stub libcuda) without the directories that
// hold them, so the wheel runs as it does where nobody installed them; a
// library the system itself provides cannot be withheld so. In a container
// world: an image without the Debian packages that provide them
// (images.MooncakeWithout), as a slim image in the field.

// checkMissingLibs says why this machine's processes cannot withhold libs.
func checkMissingLibs(libs []string) error {
	if len(libs) == 0 {
		return nil
	}
	out, err := exec.Command("ldconfig", "-p").Output()
	if err != nil {
		return engine.Unsupportedf("topology missing_libs: ldconfig -p: %v", err)
	}
	for _, l := range libs {
		if strings.Contains(string(out), l+" ") {
			if _, deb := systemLibs[l]; deb {
				return engine.Unsupportedf("topology missing_libs: %s is installed system-wide here: without it needs a container world (faultlab run --containers)", l)
			}
			return engine.Unsupportedf("topology missing_libs: %s is installed system-wide here; the real engine withholds only what its installer put on LD_LIBRARY_PATH", l)
		}
	}
	return nil
}

// debianPackagesOf are the Debian packages that provide libs, for an image
// without them; a library no Debian package of the images provides (the
// CUDA ones) cannot be withheld in a container world.
func debianPackagesOf(libs []string) ([]string, error) {
	var pkgs []string
	for _, l := range libs {
		p, ok := systemLibs[l]
		if !ok {
			return nil, engine.Unsupportedf("topology missing_libs: %s comes from no Debian package of the container images; a container world withholds only those (%s)", l, strings.Join(sortedKeys(systemLibs), ", "))
		}
		if !slices.Contains(pkgs, p) {
			pkgs = append(pkgs, p)
		}
	}
	return pkgs, nil
}

// ldPath is LD_LIBRARY_PATH for a Mooncake process of install in: its
// fixes, then the inherited value, without the directories that hold a
// library the world's hosts lack.
func (w *World) ldPath(in Installed) string {
	var keep []string
	for _, d := range strings.Split(in.LDLibraryPath(os.Getenv("LD_LIBRARY_PATH")), ":") {
		if d != "" && !slices.ContainsFunc(w.missing, func(l string) bool { return exists(filepath.Join(d, l)) }) {
			keep = append(keep, d)
		}
	}
	return strings.Join(keep, ":")
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// missingLibs reports whether the hosts lack a library now.
func (w *World) missingLibs() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.missing) > 0
}

// loaderDied reports whether p exited because the dynamic loader could not
// find a library (ld.so's line, exit 127): with missing_libs that is the
// world's state, not a harness failure.
func (w *World) loaderDied(p *proc) bool {
	if len(w.missing) == 0 || !p.Exited() || p.ExitStatus() != mooncake.LoaderExit {
		return false
	}
	return slices.ContainsFunc(p.Recent(), func(l string) bool { return strings.Contains(l, "error while loading shared libraries") })
}

// holdIfDown keeps the proxies of a server the loader could not start
// refusing, as its port would.
func (w *World) holdIfDown(ctx context.Context, s *server) error {
	w.mu.Lock()
	down := s.down
	links := slices.Clone(s.links)
	w.mu.Unlock()
	if !down {
		return nil
	}
	var errs []error
	for _, l := range links {
		errs = append(errs, w.inj.Hold(ctx, l))
	}
	return errors.Join(errs...)
}

// SetMissingLibs implements engine.LibraryFixer: processes started from
// now on load with libs; a server the loader could not start starts again
// with the new environment.
func (w *World) SetMissingLibs(ctx context.Context, libs []string) error {
	if w.ctr != nil {
		if err := w.useImageWithout(ctx, libs); err != nil {
			return err
		}
	} else if err := checkMissingLibs(libs); err != nil {
		return err
	}
	w.mu.Lock()
	w.missing = slices.Clone(libs)
	var again []*server
	for _, role := range startOrder(w.servers) {
		if s := w.servers[role]; s.down && s.noLib {
			again = append(again, s)
		}
	}
	w.mu.Unlock()
	for _, s := range again {
		env := w.env(nil)
		if s.role == "master" {
			env = w.masterEnv()
		}
		w.mu.Lock()
		s.spec.Env = env
		w.mu.Unlock()
		if err := w.startServer(ctx, s); err != nil {
			return fmt.Errorf("real engine: remedy missing_libs: %w", err)
		}
	}
	return nil
}
