package mooncake

import (
	"fmt"
	"slices"
	"strings"
)

// Native libraries a Mooncake wheel's programs and extension modules need
// that the wheel does not ship: Debian's libibverbs1 (libibverbs.so.1), its
// ibverbs-providers (libmlx5.so.1, 0.3.14), libcurl4 and libnuma1, none of
// them in a slim base image, and the CUDA runtime and driver. A host without
// one of them cannot start the program (ld.so's "error while loading shared
// libraries", exit 127) or import the module (Python's ImportError): the
// field's mooncake-install-broken class (Mooncake#3314, #1298, #1619).
//
// Measured on the wheels the real engine installs (realengine/recipe.go),
// readelf -d's NEEDED order (the loader reports the first it cannot find),
// 2026-12-02 (the CUDA libraries: ldd without the installer's
// LD_LIBRARY_PATH fix) and 2026-12-05 (the Debian ones). The non-CUDA
// 0.3.12.post1 links libcudart.so.12 into mooncake_master, mooncake_client
// and store.so (the static mooncake_store target propagated CUDA::cudart;
// PR 3119's --as-needed: the 0.3.13.post1 wheel needs none); the cuda13
// wheel of 0.3.14 links libcuda.so.1 and libcudart.so.13 into everything
// but mooncake_master. mooncake_master links libcurl up to 0.3.7.post2 and
// again from 0.3.12.post1, libnuma from 0.3.10.post1. Other releases: not
// measured (LibsMeasured).

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
	"0.3.4":        upTo037,
	"0.3.4.post2":  upTo037,
	"0.3.6.post1":  upTo037,
	"0.3.7.post2":  upTo037,
	"0.3.8.post1":  from038,
	"0.3.9":        from038,
	"0.3.10.post1": from0310,
	"0.3.11.post1": from0310,
	"0.3.12.post1": {
		ELFMaster: {"libibverbs.so.1", "libcurl.so.4", "libnuma.so.1", "libcudart.so.12"},
		ELFClient: {"libcudart.so.12", "libcurl.so.4", "libibverbs.so.1", "libnuma.so.1"},
		ELFStore:  {"libcurl.so.4", "libibverbs.so.1", "libnuma.so.1", "libcudart.so.12"},
		ELFEngine: {"libcurl.so.4", "libibverbs.so.1", "libnuma.so.1"},
	},
	"0.3.13.post1": {
		ELFMaster: {"libibverbs.so.1", "libcurl.so.4", "libnuma.so.1"},
		ELFClient: {"libibverbs.so.1", "libcurl.so.4", "libnuma.so.1"},
		ELFStore:  {"libibverbs.so.1", "libcurl.so.4", "libnuma.so.1"},
		ELFEngine: {"libibverbs.so.1", "libnuma.so.1", "libcurl.so.4"},
	},
	"0.3.14": {
		ELFMaster: {"libibverbs.so.1", "libmlx5.so.1", "libcurl.so.4", "libnuma.so.1"},
		ELFClient: {"libcudart.so.13", "libibverbs.so.1", "libcurl.so.4", "libcuda.so.1", "libmlx5.so.1", "libnuma.so.1"},
		ELFStore:  {"libibverbs.so.1", "libcurl.so.4", "libcuda.so.1", "libmlx5.so.1", "libcudart.so.13", "libnuma.so.1"},
		ELFEngine: {"libcudart.so.13", "libibverbs.so.1", "libnuma.so.1", "libmlx5.so.1", "libcurl.so.4", "libcuda.so.1"},
	},
}

var (
	upTo037 = map[string][]string{
		ELFMaster: {"libcurl.so.4", "libibverbs.so.1"},
		ELFStore:  {"libcurl.so.4", "libibverbs.so.1", "libnuma.so.1"},
		ELFEngine: {"libcurl.so.4", "libibverbs.so.1", "libnuma.so.1"},
	}
	from038 = map[string][]string{
		ELFMaster: {"libibverbs.so.1"},
		ELFClient: {"libcurl.so.4", "libibverbs.so.1", "libnuma.so.1"},
		ELFStore:  {"libcurl.so.4", "libibverbs.so.1", "libnuma.so.1"},
		ELFEngine: {"libcurl.so.4", "libibverbs.so.1", "libnuma.so.1"},
	}
	from0310 = map[string][]string{
		ELFMaster: {"libibverbs.so.1", "libnuma.so.1"},
		ELFClient: {"libcurl.so.4", "libibverbs.so.1", "libnuma.so.1"},
		ELFStore:  {"libcurl.so.4", "libibverbs.so.1", "libnuma.so.1"},
		ELFEngine: {"libcurl.so.4", "libibverbs.so.1", "libnuma.so.1"},
	}
)

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
