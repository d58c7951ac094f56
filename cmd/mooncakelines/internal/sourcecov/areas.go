// Package sourcecov measures which of Mooncake's error and warning lines
// faultlab's model can print: it extracts the texts of Mooncake's
// LOG(ERROR|WARNING|FATAL), PLOG, LOG_ASSERT and CHECK statements from a tag
// of its source and matches them against the Go string literals of the
// model (models/, sim/, fakeengine/, mooncake/). The method and its
// thresholds are those of the 2026-12-04 coverage survey, so the numbers
// of `go run ./cmd/mooncakelines` are comparable with docs/FIELD.md's.
package sourcecov

import (
	"regexp"
	"strings"
)

// Area is a part of Mooncake whose source files are counted together.
// A path ending in "/" is a directory (everything under it).
type Area struct {
	Name  string
	Paths []string
}

const (
	storeSrc = "mooncake-store/src/"
	teSrc    = "mooncake-transfer-engine/src/"
)

// Areas are the survey's file sets, first match wins. Files that exist only
// at some tags (client.cpp ≤0.3.7, pybind_client.cpp 0.3.6–0.3.7, the ha/
// directory from 0.3.10.post2) are simply absent elsewhere. TENT
// (mooncake-transfer-engine/tent/) is not on the default path: not counted.
var Areas = []Area{
	{"store-client", []string{
		storeSrc + "client_service.cpp", storeSrc + "client_buffer.cpp", storeSrc + "aligned_client_buffer.cpp",
		storeSrc + "client_buffer_allocation.cpp", storeSrc + "real_client.cpp", storeSrc + "real_client_main.cpp",
		storeSrc + "dummy_client.cpp", storeSrc + "master_client.cpp", storeSrc + "transfer_task.cpp",
		storeSrc + "allocator.cpp", storeSrc + "offset_allocator.cpp",
		"mooncake-integration/store/store_py.cpp", "mooncake-integration/store/store_py_parallel_read.h",
		"mooncake-integration/store/store_py_internal.h", "mooncake-integration/store/store_py_parallel_write.h",
		storeSrc + "client.cpp", storeSrc + "utils.cpp", storeSrc + "pybind_client.cpp",
	}},
	// http_metadata_server is the master's: the embedded metadata server
	// runs inside mooncake_master (0.3.12 logs its bind failure there).
	{"master", []string{
		storeSrc + "master_service.cpp", storeSrc + "rpc_service.cpp", storeSrc + "master.cpp",
		storeSrc + "http_metadata_server.cpp", storeSrc + "segment.cpp", storeSrc + "allocation_strategy.cpp",
	}},
	{"master-ha", []string{storeSrc + "ha_helper.cpp", storeSrc + "etcd_helper.cpp", storeSrc + "ha/"}},
	{"te-core", []string{
		teSrc + "transfer_engine.cpp", teSrc + "transfer_engine_impl.cpp", teSrc + "topology.cpp",
		teSrc + "config.cpp", teSrc + "common/", "mooncake-transfer-engine/include/common.h",
	}},
	{"metadata", []string{teSrc + "transfer_metadata.cpp", teSrc + "transfer_metadata_plugin.cpp"}},
	{"te-tcp", []string{teSrc + "transport/tcp_transport/"}},
	{"te-rdma", []string{teSrc + "transport/rdma_transport/"}},
}

// AreaNames lists the areas in table order.
func AreaNames() []string {
	names := make([]string, len(Areas))
	for i, a := range Areas {
		names[i] = a.Name
	}
	return names
}

// AreaOf is the area a repository path belongs to, "" if none (Counted
// also requires a .cpp or .h file).
func AreaOf(path string) string {
	for _, a := range Areas {
		for _, p := range a.Paths {
			if path == p || (strings.HasSuffix(p, "/") && strings.HasPrefix(path, p)) {
				return a.Name
			}
		}
	}
	return ""
}

// Counted says whether the survey reads this file.
func Counted(path string) bool {
	return (strings.HasSuffix(path, ".cpp") || strings.HasSuffix(path, ".h")) && AreaOf(path) != ""
}

// exotic marks texts off the "core" path: lines a TCP/RDMA SGLang, vLLM or
// LMCache user on the default allocator does not meet (NoF, CXL, Ascend,
// UB, Barex, MACA, HIP, GPU, NUMA, tensor APIs, snapshots, tenants, HA
// backends, replication, copy/move, hot cache, …). Kept as the survey wrote
// it, so its numbers stay comparable.
var exotic = regexp.MustCompile(`NoF|\bnof|CXL|cxl|Ascend|ascend|acl|\bub\b|\bUB\b|UBShmem|Barex|barex|MACA|\bHIP\b|\bhip|sunrise|[Tt]ensor|safetensor|spdk|SPDK|[Ss]napshot|[Tt]enant|Redis|redis|k8s|[Oo]p[Ll]og|NUMA|numa|CUDA|cuda|GPU|gpu|dmabuf|dma_buf|cxi|CXI|parallelism|tp_|hot cache|Hot cache|MC_MS_FILTERS|upsert|Upsert|Promotion|promotion|[Rr]eplication|Copy|Move|copy_|move_|D2H|H2D|device`)

// exoticFile marks files whose every line is off the core path.
var exoticFile = regexp.MustCompile(`store_py_parallel|store_py_internal|/ha/|transfer_task.cpp$`)
