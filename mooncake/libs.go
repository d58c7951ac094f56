package mooncake

import (
	"fmt"
	"slices"
	"strings"
)

// Native libraries a Mooncake wheel's programs and extension modules need
// that the wheel does not ship and Debian's base packages do not give: the
// CUDA runtime and driver. A host without one of them cannot start the
// program (ld.so's "error while loading shared libraries", exit 127) or
// import the module (Python's ImportError): the field's
// mooncake-install-broken class (Mooncake#3314, #1298).
//
// Measured on the wheels the real engine installs (realengine/recipe.go),
// readelf's NEEDED order and ldd without the installer's LD_LIBRARY_PATH
// fix, 2026-12-02: 0.3.4, 0.3.4.post2, 0.3.6.post1, 0.3.7.post2,
// 0.3.8.post1, 0.3.9, 0.3.10.post1, 0.3.11.post1 and 0.3.13.post1 need
// none; the non-CUDA 0.3.12.post1 links libcudart.so.12 into
// mooncake_master, mooncake_client and store.so (the static mooncake_store
// target propagated CUDA::cudart; PR 3119's --as-needed: the 0.3.13.post1
// wheel needs none); the cuda13 wheel of 0.3.14 links libcuda.so.1 and
// libcudart.so.13 into everything but mooncake_master. Other releases:
// not measured (LibsMeasured).

// The ELF files of a wheel that need native libraries.
const (
	ELFMaster = "mooncake_master"
	ELFClient = "mooncake_client"
	// ELFStore is the mooncake.store extension (store.so; _store.*.so
	// from 0.3.14), ELFEngine mooncake.engine (engine.so).
	ELFStore  = "mooncake.store"
	ELFEngine = "mooncake.engine"
)

// nativeLibs: per release, each ELF's libraries in NEEDED order (the
// dynamic loader reports the first it cannot find).
var nativeLibs = map[string]map[string][]string{
	"0.3.12.post1": {
		ELFMaster: {"libcudart.so.12"},
		ELFClient: {"libcudart.so.12"},
		ELFStore:  {"libcudart.so.12"},
	},
	"0.3.14": {
		ELFClient: {"libcudart.so.13", "libcuda.so.1"},
		ELFStore:  {"libcuda.so.1", "libcudart.so.13"},
		ELFEngine: {"libcudart.so.13", "libcuda.so.1"},
	},
}

var libsMeasured = []string{"0.3.4", "0.3.4.post2", "0.3.6.post1", "0.3.7.post2", "0.3.8.post1", "0.3.9",
	"0.3.10.post1", "0.3.11.post1", "0.3.12.post1", "0.3.13.post1", "0.3.14"}

// KnownLibs are the libraries a scenario may withhold
// (topology.missing_libs): those some measured wheel needs.
func KnownLibs() []string {
	var out []string
	for _, m := range nativeLibs {
		for _, libs := range m {
			for _, l := range libs {
				if !slices.Contains(out, l) {
					out = append(out, l)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// LibsMeasured reports whether the libraries of version's wheel were
// measured; a model must not guess the others.
func LibsMeasured(version string) error {
	if slices.Contains(libsMeasured, version) {
		return nil
	}
	return fmt.Errorf("which native libraries Mooncake %s's wheel needs was not measured (measured: %s)", version, strings.Join(libsMeasured, ", "))
}

// UnloadableLib is the library the dynamic loader fails on when elf of
// p's release starts on a host without the missing libraries ("" = it
// loads).
func (p Profile) UnloadableLib(elf string, missing []string) string {
	for _, l := range nativeLibs[p.Version.String()][elf] {
		if slices.Contains(missing, l) {
			return l
		}
	}
	return ""
}

// LoaderError is ld.so's line for a program that cannot start
// (elf/dl-load.c through rtld's _dl_signal_error; the program exits 127).
func LoaderError(prog, lib string) string {
	return prog + ": error while loading shared libraries: " + lib + ": cannot open shared object file: No such file or directory"
}

// LoaderExit is the status a program the loader cannot start exits with.
const LoaderExit = 127

// ImportErrorText is the message of Python's ImportError for an extension
// module that needs lib (dlopen's dlerror()).
func ImportErrorText(lib string) string {
	return lib + ": cannot open shared object file: No such file or directory"
}
