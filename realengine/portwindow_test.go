package realengine

import (
	"slices"
	"testing"
)

// Which variables a process's window goes in, by release, and when a
// scenario's own range is kept; exact environment out.
func TestWithPortWindow(t *testing.T) {
	base := []string{"PATH=/usr/bin", "MOONCAKE_PROTOCOL=tcp"}
	for _, tc := range []struct {
		version string
		env     []string
		want    []string // nil: no window
	}{
		{"0.3.4.post2", base, nil}, // 15000..17000 fixed; TCP port = RPC port + 1
		{"0.3.6.post1", base, nil}, // 15000..17000 fixed
		{"0.3.7", base, []string{"MC_MIN_PRC_PORT=61033", "MC_MAX_PRC_PORT=61063"}},
		{"0.3.9", base, []string{"MC_MIN_PRC_PORT=61033", "MC_MAX_PRC_PORT=61063"}},
		{"0.3.10.post1", base, []string{"MC_MIN_PRC_PORT=61033", "MC_MAX_PRC_PORT=61063"}},
		{"0.3.10.post2", base, []string{"MC_MIN_PRC_PORT=61033", "MC_MAX_PRC_PORT=61063"}},
		{"0.3.11", base, []string{"MC_MIN_RPC_PORT=61033", "MC_MAX_RPC_PORT=61063"}},
		{"0.3.11.post1", base, []string{"MC_MIN_RPC_PORT=61033", "MC_MAX_RPC_PORT=61063"}},
		{"0.3.13.post1", base, []string{"MC_MIN_RPC_PORT=61033", "MC_MAX_RPC_PORT=61063"}},
		{"0.3.14", base, []string{"MC_MIN_RPC_PORT=61033", "MC_MAX_RPC_PORT=61063"}},
		// The scenario's own range stays, whichever name it uses.
		{"0.3.11.post1", append(slices.Clone(base), "MC_MIN_RPC_PORT=16000", "MC_MAX_RPC_PORT=15000"), nil},
		{"0.3.11.post1", append(slices.Clone(base), "MC_MIN_PRC_PORT=16000"), nil}, // 0.3.11's fallback
		{"0.3.9", append(slices.Clone(base), "MC_MAX_PRC_PORT=16500"), nil},
		{"0.3.9", append(slices.Clone(base), "MC_MIN_RPC_PORT=15500"), nil},
		// Other port settings do not move findAvailableTcpPort's range.
		{"0.3.9", append(slices.Clone(base), "MC_HANDSHAKE_PORT=12002"), []string{"MC_MIN_PRC_PORT=61033", "MC_MAX_PRC_PORT=61063"}},
		{"x", base, nil},
	} {
		got := tc.env
		if lo, hi, ok := windowNames(tc.version, tc.env); ok {
			got = withWindow(tc.env, lo, hi, 61033, 61063)
		}
		want := tc.env
		if tc.want != nil {
			want = append(slices.Clone(tc.env), tc.want...)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s %v: env = %v, want %v", tc.version, tc.env, got, want)
		}
	}
}
