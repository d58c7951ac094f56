package te

import (
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// TestSegmentDescProtocols: decodeSegmentDesc's branches per release
// (transfer_metadata.cpp at the tags): a protocol the release has no branch
// for is "Unsupported segment descriptor" (efa before v0.3.10: real 0.3.8.post1
// and 0.3.9, io/http-metadata-segment-desc-unsupported-protocol).
func TestSegmentDescProtocols(t *testing.T) {
	for _, tc := range []struct {
		version string
		has     []string
		lacks   []string
	}{
		{"0.3.0", []string{"rdma", "tcp", "nvmeof"}, []string{"nvlink", "", "efa"}},
		{"0.3.4", []string{"nvlink"}, []string{"ascend"}},
		{"0.3.7.post2", []string{"ascend", "cxl"}, []string{"barex", "hip"}},
		{"0.3.8.post1", []string{"barex", "hip"}, []string{"nvlink_intra", "efa"}},
		{"0.3.9", []string{"nvlink_intra", "ubshmem"}, []string{"efa"}},
		{"0.3.10.post1", []string{"efa"}, []string{"ub"}},
		{"0.3.11.post1", []string{"ub", "maca"}, []string{"cxi"}},
		{"0.3.12.post1", []string{"cxi", "sunrise_link"}, []string{"musa", ""}},
		{"0.3.14", []string{"tcp", "rdma", "musa", "nccl"}, []string{"", "foo"}},
	} {
		ps := segmentDescProtocols(mooncake.MustVersion(tc.version))
		for _, p := range tc.has {
			if !slices.Contains(ps, p) {
				t.Errorf("%s: %q not decoded", tc.version, p)
			}
		}
		for _, p := range tc.lacks {
			if slices.Contains(ps, p) {
				t.Errorf("%s: %q decoded", tc.version, p)
			}
		}
	}
}
