package mooncake

import (
	"fmt"
	"slices"
)

// A host whose libstdc++ is older than a wheel's toolchain: the release
// wheels up to 0.3.11.post1 were built on ubuntu-22.04 with GCC 12, so
// mooncake_master, mooncake_client and the store module (the engine
// module from 0.3.8) need GLIBCXX_3.4.30; from 0.3.12.post1 they are built
// in PyTorch's manylinux_2_28 image and need GLIBCXX_3.4.22 at most
// (Mooncake#2586, PR 2605). On a host whose /lib64/libstdc++.so.6 ends at
// GLIBCXX_3.4.29 (RHEL 9's GCC 11) the loader names GLIBCXX_3.4.30.
//
// Measured 2026-12-07 on the wheels the real engine installs: readelf -V
// of each ELF, and each program and module started against a
// libstdc++.so.6 whose version definitions end at GLIBCXX_3.4.29
// (docs/REAL-FINDINGS.md §145). Older hosts' libstdc++ make the loader
// name another version first (the order of each file's version needs), not
// modelled: LibstdcxxLevels are the levels measured.

// LibstdcxxRHEL9 is the newest GLIBCXX version of RHEL 9's (and its
// rebuilds') system libstdc++ (GCC 11).
const LibstdcxxRHEL9 = "3.4.29"

// LibstdcxxLevels are the host libstdc++ levels a scenario may give
// (topology.libstdcxx).
var LibstdcxxLevels = []string{LibstdcxxRHEL9}

// LibstdcxxPath is where the RHEL family keeps libstdc++.so.6: the path
// the loader's line names.
const LibstdcxxPath = "/lib64/libstdc++.so.6"

// glibcxx30 are the ELFs that need GLIBCXX_3.4.30 in the releases up to
// 0.3.11.post1 libsMeasured holds; the engine module needs it from 0.3.8.
var glibcxx30 = map[string][]string{
	"0.3.4":        {ELFMaster, ELFStore},
	"0.3.4.post2":  {ELFMaster, ELFStore},
	"0.3.6.post1":  {ELFMaster, ELFStore},
	"0.3.7.post2":  {ELFMaster, ELFStore},
	"0.3.8.post1":  {ELFMaster, ELFClient, ELFStore, ELFEngine},
	"0.3.9":        {ELFMaster, ELFClient, ELFStore, ELFEngine},
	"0.3.10.post1": {ELFMaster, ELFClient, ELFStore, ELFEngine},
	"0.3.11.post1": {ELFMaster, ELFClient, ELFStore, ELFEngine},
}

// LibstdcxxMeasured says whether a host libstdc++ level was measured
// against version's wheel.
func LibstdcxxMeasured(version, level string) error {
	if !slices.Contains(LibstdcxxLevels, level) {
		return fmt.Errorf("libstdc++ up to GLIBCXX_%s was not measured (measured: %v)", level, LibstdcxxLevels)
	}
	// The same wheels as the libraries (readelf of each).
	return LibsMeasured(version)
}

// GLIBCXXMissing is the version the loader names when elf of p's release
// loads against a host libstdc++ that ends at level ("" = it loads, or no
// level given).
func (p Profile) GLIBCXXMissing(elf, level string) string {
	if level == LibstdcxxRHEL9 && slices.Contains(glibcxx30[p.Version.String()], elf) {
		return "GLIBCXX_3.4.30"
	}
	return ""
}

// VersionNotFound is dlerror()'s text for an object that needs a version
// the host's libstdc++ lacks (elf/dl-version.c match_symbol): Python's
// ImportError message, and after "<program>: " ld.so's line for a
// program, whose exit status is LoaderExit.
func VersionNotFound(version, requiredBy string) string {
	return LibstdcxxPath + ": version `" + version + "' not found (required by " + requiredBy + ")"
}
