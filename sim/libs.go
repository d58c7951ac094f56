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
	if len(w.missingLibs) == 0 && w.spec.Libstdcxx == "" {
		return false
	}
	p, err := mooncake.ProfileFor(version)
	if err != nil {
		return false
	}
	prog := PackageDir + "/" + elf
	// A library not found stops the loader before it checks versions.
	if lib := p.UnloadableLib(elf, w.missingLibs); lib != "" {
		w.tr.Log(source, "INFO", mooncake.LoaderError(prog, lib))
		return true
	}
	if ver := p.GLIBCXXMissing(elf, w.spec.Libstdcxx); ver != "" {
		w.tr.Log(source, "INFO", prog+": "+mooncake.VersionNotFound(ver, prog))
		return true
	}
	return false
}

// importError is Python's ImportError for a module of the run's release
// whose native library the hosts lack (nil = it imports). The import is
// tried again on every `from mooncake.store import ...`: Python keeps no
// module that failed.
func (w *World) importError(module string) error {
	if lib := w.profile.UnloadableLib(module, w.missingLibs); lib != "" {
		return &engine.PyError{Class: "ImportError", Message: mooncake.ImportErrorText(lib)}
	}
	if ver := w.profile.GLIBCXXMissing(module, w.spec.Libstdcxx); ver != "" {
		return &engine.PyError{Class: "ImportError", Message: mooncake.VersionNotFound(ver, PackageDir+"/"+moduleFile[module])}
	}
	return nil
}

// moduleFile are the extension modules' files up to 0.3.13 (0.3.14's
// store is _store.cpython-311-x86_64-linux-gnu.so; it needs no
// GLIBCXX_3.4.30).
var moduleFile = map[string]string{mooncake.ELFStore: "store.so", mooncake.ELFEngine: "engine.so"}

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
