package sglang

import (
	"strconv"
	"strings"
)

// Release gates: the first PyPI release of SGLang whose code the model
// follows for a behaviour (read in the wheels' mooncake_store.py and
// pool_host/mha.py; docs/ENGINES.md, "Which SGLang").
const (
	// MHA host pools expose get_hybrid_pool_buffer() = [k_buffer, v_buffer]
	// (register_mem_pool_host registers the two halves and the standalone
	// size counts kv + v); before, the whole kv_buffer once.
	versionKVHalves = "0.5.21"
	// ssd_offload_path gets a per-rank subdirectory rank_{dp}_{tp}_{pp}_{cp},
	// created with os.makedirs.
	versionSSDRankDir = "0.5.21"
	// global_segment_size is split by tp_size * pp_size (before: tp_size);
	// 0.5.19 has it, 0.5.17 not, 0.5.18 was not checked.
	versionSegmentPerPP = "0.5.19"
	// The embedding store is built through EmbeddingStoreFactory, which
	// logs EmbeddingFactoryLog (0.5.19 has it, 0.5.17 not, 0.5.18 not checked).
	versionEmbeddingFactory = "0.5.19"
)

// atLeast reports whether this launch's SGLang release is min or newer
// ("" = LatestVersion).
func (l Launch) atLeast(min string) bool {
	v := l.SGLangVersion
	if v == "" {
		v = LatestVersion
	}
	return compareRelease(v, min) >= 0
}

// compareRelease orders dotted releases numerically ("0.5.9" < "0.5.17");
// a ".postN" suffix sorts after its base.
func compareRelease(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(as), len(bs)); i++ {
		x, y := releasePart(as, i), releasePart(bs, i)
		if x != y {
			return x - y
		}
	}
	return 0
}

func releasePart(parts []string, i int) int {
	if i >= len(parts) {
		return -1
	}
	p := strings.TrimPrefix(parts[i], "post")
	n, err := strconv.Atoi(p)
	if err != nil {
		return 0
	}
	return n
}
