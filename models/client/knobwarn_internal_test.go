package client

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// lineLog collects "LEVEL text" lines.
func lineLog(lines *[]string) mlog.Logger {
	return mlog.Func(func(level, text string) { *lines = append(*lines, level+" "+text) })
}

// TransferSubmitter's MC_STORE_MEMCPY (transfer_task.cpp v0.3.4 …): an
// unknown word is warned, lowercased, and turns the fast path on (real
// 0.3.9 … 0.3.14: "Invalid value for MC_STORE_MEMCPY: disable, defaulting
// to enabled"; 0.3.10.x's reader then dies in io/local-memcpy-invalid-value).
func TestMemcpyKnobWarning(t *testing.T) {
	const disable = "WARNING Invalid value for MC_STORE_MEMCPY: disable, defaulting to enabled"
	for _, c := range []struct {
		version, value string
		want           []string
		memcpy         bool // LocalMemcpy on a TCP-only engine
	}{
		{"0.3.4", "Disable", []string{disable}, true},
		{"0.3.10.post1", "Disable", []string{disable}, true},
		{"0.3.10.post1", "OFF", nil, false},
		{"0.3.12.post1", "yes", nil, true},
		{"0.3.12.post1", "", []string{"WARNING Invalid value for MC_STORE_MEMCPY: , defaulting to enabled"}, true},
		{"0.3.14", "disabled", []string{"WARNING Invalid value for MC_STORE_MEMCPY: disabled, defaulting to enabled"}, true},
		// No switch before 0.3.4: nothing read, nothing said.
		{"0.3.3.post2", "Disable", nil, false},
	} {
		var lines []string
		p := mooncake.MustProfile(c.version)
		cl := &RealClient{p: p, d: Deps{Env: map[string]string{"MC_STORE_MEMCPY": c.value}, Log: lineLog(&lines)}}
		cl.logMemcpyChoice()
		if !slices.Equal(lines, c.want) {
			t.Errorf("%s MC_STORE_MEMCPY=%q: lines %q, want %q", c.version, c.value, lines, c.want)
		}
		if got := p.StoreMemcpy.LocalMemcpy(c.value, true, true); got != c.memcpy {
			t.Errorf("%s MC_STORE_MEMCPY=%q: memcpy %v, want %v", c.version, c.value, got, c.memcpy)
		}
	}
}

// An invalid MC_MTU at import: ERROR, then exit 1 up to 0.3.11.post1;
// the ERROR alone from 0.3.12 (the knob table's level).
func TestLoadGlobalConfigMTU(t *testing.T) {
	const mtu = "ERROR Ignore value from environment variable MC_MTU, it should be 512|1024|2048|4096"
	for _, c := range []struct {
		version string
		exits   bool
	}{{"0.3.11.post1", true}, {"0.3.12.post1", false}} {
		var lines []string
		err := LoadGlobalConfig(mooncake.MustProfile(c.version), map[string]string{"MC_MTU": "9000"}, lineLog(&lines))
		var died *engine.ProcessDied
		if errors.As(err, &died) != c.exits || !slices.Equal(lines, []string{mtu}) {
			t.Errorf("%s: err %v, lines %q", c.version, err, lines)
		}
		if c.exits && died.Exit != 1 {
			t.Errorf("%s: exit %d, want 1", c.version, died.Exit)
		}
	}
}

// FileStorageConfig::FromEnvironment's backend descriptor is read before
// the storage path is checked: an unknown name logs at ERROR first (real
// 0.3.11.post1 and 0.3.14: "Unknown storage backend.", the bucket backend).
func TestOffloadBackendDescriptorWarning(t *testing.T) {
	const missing = "ERROR FileStorageConfig: storage_filepath does not exist: /nope"
	for _, c := range []struct {
		version, value string
		want           []string
	}{
		{"0.3.11.post1", "bucket", []string{"ERROR Unknown storage backend.", missing}},
		{"0.3.11.post1", "file_per_key_storage_backend", []string{missing}},
		{"0.3.11.post1", "distributed_storage_backend", []string{"ERROR Unknown storage backend.", missing}},
		{"0.3.12.post1", "distributed_storage_backend", []string{missing}},
	} {
		var lines []string
		cl := &RealClient{p: mooncake.MustProfile(c.version), d: Deps{Log: lineLog(&lines),
			Env: map[string]string{"MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR": c.value}}}
		a := engine.SetupArgs{Kwargs: []engine.Kwarg{{Name: "enable_ssd_offload", Value: true}, {Name: "ssd_offload_path", Value: "/nope"}}}
		_, err := cl.initFileStorage(context.Background(), a)
		var pe *engine.PyError
		if !errors.As(err, &pe) || pe.Message != "Invalid FileStorage configuration" {
			t.Errorf("%s %q: err %v", c.version, c.value, err)
		}
		if !slices.Equal(lines, c.want) {
			t.Errorf("%s %q: lines %q, want %q", c.version, c.value, lines, c.want)
		}
	}
}
