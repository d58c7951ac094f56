package client

import (
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// Environ's bool warnings as real printed them at store setup (0.3.13.post1
// with MC_USE_IPV6=maybe MC_FORCE_TCP=" " MC_FORCE_HCA=enabled
// WITH_NVIDIA_PEERMEM=enabled MC_DISABLE_METACACHE=" Yes "): environ.cpp's
// order, plain stderr; none at 0.3.12.post1 (GetBool, silent) nor at
// 0.3.14 for these names (real: none for MC_FORCE_TCP/HCA, MC_USE_IPV6).
func TestEnvironBoolWarnings(t *testing.T) {
	env := map[string]string{
		"MC_USE_IPV6": "maybe", "MC_FORCE_TCP": " ", "MC_FORCE_HCA": "enabled",
		"WITH_NVIDIA_PEERMEM": "enabled", "MC_DISABLE_METACACHE": " Yes ",
	}
	for _, c := range []struct {
		version string
		want    []string
	}{
		{"0.3.12.post1", nil},
		{"0.3.13.post1", []string{
			"stderr [Mooncake] Warning: invalid value 'maybe' for env MC_USE_IPV6, using default 0",
			"stderr [Mooncake] Warning: invalid value ' ' for env MC_FORCE_TCP, using default 0",
			"stderr [Mooncake] Warning: invalid value 'enabled' for env MC_FORCE_HCA, using default 0",
			"stderr [Mooncake] Warning: invalid value 'enabled' for env WITH_NVIDIA_PEERMEM, using default 1",
		}},
	} {
		var lines []string
		environWarnings(mooncake.MustProfile(c.version), env, lineLog(&lines))
		if !slices.Equal(lines, c.want) {
			t.Errorf("%s: lines %q, want %q", c.version, lines, c.want)
		}
	}
	// Valid words are silent.
	var lines []string
	environWarnings(mooncake.MustProfile("0.3.13.post1"), map[string]string{"MC_FORCE_TCP": "1", "MC_USE_IPV6": " off ", "WITH_NVIDIA_PEERMEM": "Disable"}, lineLog(&lines))
	if lines != nil {
		t.Errorf("valid words: lines %q, want none", lines)
	}
}
