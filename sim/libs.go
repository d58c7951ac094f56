package sim

import (
	"context"
	"slices"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// PackageDir is where the sim's wheel lives: the path ld.so names a
// program by (argv[0], as the real engine starts it).
const PackageDir = "/opt/venv/lib/python3.11/site-packages/mooncake"

// loaderFails reports whether the dynamic loader cannot start program elf
// of version on the world's hosts; then it prints ld.so's line on the
// server's log (the process exits 127 before main).
func (w *World) loaderFails(elf, version, source string) bool {
	if len(w.missingLibs) == 0 {
		return false
	}
	p, err := mooncake.ProfileFor(version)
	if err != nil {
		return false
	}
	lib := p.UnloadableLib(elf, w.missingLibs)
	if lib == "" {
		return false
	}
	w.tr.Log(source, "INFO", mooncake.LoaderError(PackageDir+"/"+elf, lib))
	return true
}

// importError is Python's ImportError for a module of the run's release
// whose native library the hosts lack (nil = it imports). The import is
// tried again on every `from mooncake.store import ...`: Python keeps no
// module that failed.
func (w *World) importError(module string) error {
	if lib := w.profile.UnloadableLib(module, w.missingLibs); lib != "" {
		return &engine.PyError{Class: "ImportError", Message: mooncake.ImportErrorText(lib)}
	}
	return nil
}

// SetMissingLibs implements engine.LibraryFixer: processes started from
// now on load with libs; a server the loader could not start starts now.
func (w *World) SetMissingLibs(ctx context.Context, libs []string) error {
	w.missingLibs = slices.Clone(libs)
	if w.masterNoLib && w.spec.Master != nil && w.ha == nil {
		w.startMaster()
	}
	if w.clientNoLib && w.spec.Client != nil {
		w.startStandalone(ctx)
	}
	return nil
}
