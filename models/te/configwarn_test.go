package te_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// A typo'd knob of config.cpp or get_auto_discover: the line Mooncake
// logs (level and text, from the knob table), the default kept. Real
// 0.3.9 and 0.3.12.post1 printed the three lines in this order
// (scenarios/regressions/knob-te-config-warnings-*.yaml).
func TestConfigKnobWarnings(t *testing.T) {
	const gid, hs = "WARNING Ignore value from environment variable MC_GID_INDEX", "WARNING Ignore value from environment variable MC_HANDSHAKE_PORT"
	const disc2 = "WARNING invalid MC_MS_AUTO_DISC value: 2, should be 0 or 1, using default: auto discovery not set"
	for _, c := range []struct {
		version string
		env     map[string]string
		want    []string
	}{
		{"0.3.9", map[string]string{"MC_GID_INDEX": "300", "MC_HANDSHAKE_PORT": "70000", "MC_MS_AUTO_DISC": "2"}, []string{gid, hs, disc2}},
		{"0.3.12.post1", map[string]string{"MC_GID_INDEX": "300", "MC_HANDSHAKE_PORT": "70000", "MC_MS_AUTO_DISC": "2"}, []string{gid, hs, disc2}},
		// NCCL_IB_GID_INDEX stands in for an unset MC_GID_INDEX; the line names MC_GID_INDEX.
		{"0.3.12.post1", map[string]string{"NCCL_IB_GID_INDEX": "-1"}, []string{gid}},
		{"0.3.12.post1", map[string]string{"MC_GID_INDEX": "3", "NCCL_IB_GID_INDEX": "-1"}, nil},
		// In range, or a leading number atoi takes: silent.
		{"0.3.9", map[string]string{"MC_GID_INDEX": "255", "MC_HANDSHAKE_PORT": "12002x", "MC_MS_AUTO_DISC": "0"}, nil},
		// MC_MAX_MR_SIZE from 0.3.10.post1: 0 ("abc") ignored, a unit silently taken.
		{"0.3.11.post1", map[string]string{"MC_MAX_MR_SIZE": "abc"}, []string{"WARNING Ignore value from environment variable MC_MAX_MR_SIZE"}},
		{"0.3.10", map[string]string{"MC_MAX_MR_SIZE": "abc"}, nil},
		// Up to 0.3.5 a number but 1 is off, silently (client.cpp v0.3.5:82-90).
		{"0.3.5", map[string]string{"MC_MS_AUTO_DISC": "2"}, nil},
		// 0.3.12+: a word is caught, the same warning.
		{"0.3.12.post1", map[string]string{"MC_MS_AUTO_DISC": "yes"}, []string{"WARNING invalid MC_MS_AUTO_DISC value: yes, should be 0 or 1, using default: auto discovery not set"}},
	} {
		p, err := mooncake.ProfileFor(c.version)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		e := te.New(te.Config{Profile: p, Host: te.Host{Name: "n"}, Ports: ports{}, Env: c.env,
			Log: mlog.Func(func(level, text string) {
				// The knobs' lines are WARNINGs (TCP's install logs an ERROR of its own from 0.3.10.post2).
				if level == mlog.Warning {
					got = append(got, level+" "+text)
				}
			})})
		if err := e.InitStore(context.Background(), "127.0.0.1:17781", te.P2PHandshake, "tcp", nil); err != nil {
			t.Fatalf("%s %v: %v", c.version, c.env, err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s %v:\n got %q\nwant %q", c.version, c.env, got, c.want)
		}
	}
}

// The last seven config.cpp knobs (REAL-FINDINGS §102): real 0.3.12.post1,
// 0.3.13.post1 and 0.3.14 printed these lines, in this order, between
// their neighbours'; a bare TransferEngine's auto-discovery adds topology's
// warning when the HCA affinity is on without a mapping.
func TestLastConfigKnobLines(t *testing.T) {
	env := map[string]string{
		"MC_HANDSHAKE_PORT": "70000", "MC_MIN_REG_SIZE": "abc", "MC_MAX_MR_SIZE": "0", "MC_AUTO_GID_MAX_RETRIES": "17",
		"MC_TE_METADATA_REFRESH_INTERVAL_SECONDS": "-1", "MC_RDMA_RAIL_PAUSE_SECONDS": "-1", "MC_SLICE_TIMEOUT": "0",
		"MC_CONN_PAUSE_TTL_MS": "-1", "MC_FRAGMENT_RATIO": "0", "MC_ENABLE_HCA_PEER_AFFINITY": "yes",
		"MC_NIC_PEER_AFFINITY": " mlx5_0 ;=mlx5_1; mlx5_2 = , ;mlx5_3=mlx5_4", "MC_LOG_RDMA_SLICE_AFFINITY": "on",
		"MC_TRACK_RDMA_POSTED_SLICES": "maybe", "MC_ENABLE_PARALLEL_REG_MR": "2",
	}
	ign := func(n string) string { return "WARNING Ignore value from environment variable " + n }
	want := []string{
		ign("MC_HANDSHAKE_PORT"), ign("MC_MIN_REG_SIZE"), ign("MC_MAX_MR_SIZE"), ign("MC_AUTO_GID_MAX_RETRIES"),
		ign("MC_TE_METADATA_REFRESH_INTERVAL_SECONDS"), ign("MC_RDMA_RAIL_PAUSE_SECONDS"), ign("MC_SLICE_TIMEOUT"),
		ign("MC_CONN_PAUSE_TTL_MS") + ", value -1 out of range (should be 0-600000)",
		ign("MC_FRAGMENT_RATIO") + " and set it to 4 as default",
		ign("MC_ENABLE_HCA_PEER_AFFINITY") + ", it should be 0|1|true|false",
		"WARNING Invalid MC_NIC_PEER_AFFINITY rule 'mlx5_0'. Expected local_hca=peer_hca[,peer_hca].",
		"WARNING Invalid MC_NIC_PEER_AFFINITY rule '=mlx5_1': local HCA is empty.",
		"WARNING Invalid MC_NIC_PEER_AFFINITY rule 'mlx5_2 = ,': peer HCA list is empty.",
		ign("MC_LOG_RDMA_SLICE_AFFINITY") + ", it should be 0|1|true|false",
		ign("MC_TRACK_RDMA_POSTED_SLICES") + ", it should be 0|1|true|false",
		ign("MC_ENABLE_PARALLEL_REG_MR"),
	}
	// A bare TransferEngine prints them twice at 0.3.12.post1 and
	// 0.3.13.post1 (the package init imports mooncake.store: store.so's
	// config load, then engine.so's), once at 0.3.14 (REAL-FINDINGS §104).
	for _, c := range []struct {
		v     string
		loads int
	}{{"0.3.12.post1", 2}, {"0.3.13.post1", 2}, {"0.3.14", 1}} {
		var w []string
		for range c.loads {
			w = append(w, want...)
		}
		if got := initLines(t, c.v, env, false); !slices.Equal(got, w) {
			t.Errorf("%s:\n got %q\nwant %q", c.v, got, w)
		}
	}
	// 0.3.9 reads only the two old ones.
	want9 := []string{ign("MC_HANDSHAKE_PORT"), ign("MC_MIN_REG_SIZE"), ign("MC_SLICE_TIMEOUT"),
		ign("MC_FRAGMENT_RATIO") + " and set it to 4 as default", ign("MC_ENABLE_PARALLEL_REG_MR")}
	if got := initLines(t, "0.3.9", env, false); !slices.Equal(got, want9) {
		t.Errorf("0.3.9:\n got %q\nwant %q", got, want9)
	}
	const barex = "INFO Barex set MC_MIN_REG_SIZE=18446744073709551615"
	const conflict = "ERROR MC_ENABLE_HCA_PEER_AFFINITY and MC_ENABLE_DEST_DEVICE_AFFINITY cannot be enabled at the same time; falling back to default peer device selection."
	const unmapped = "WARNING MC_ENABLE_HCA_PEER_AFFINITY is set, but MC_NIC_PEER_AFFINITY has no valid mappings."
	for _, c := range []struct {
		v    string
		env  map[string]string
		want []string
	}{
		{"0.3.14", map[string]string{"MC_ENABLE_HCA_PEER_AFFINITY": "1", "MC_ENABLE_DEST_DEVICE_AFFINITY": "1", "MC_MIN_REG_SIZE": "-1"}, []string{barex, conflict}},
		{"0.3.9", map[string]string{"MC_ENABLE_HCA_PEER_AFFINITY": "1", "MC_ENABLE_DEST_DEVICE_AFFINITY": "1", "MC_MIN_REG_SIZE": "-1"}, []string{barex}},
		{"0.3.13.post1", map[string]string{"MC_ENABLE_HCA_PEER_AFFINITY": "True", "MC_NIC_PEER_AFFINITY": "mlx5_0"},
			[]string{"WARNING Invalid MC_NIC_PEER_AFFINITY rule 'mlx5_0'. Expected local_hca=peer_hca[,peer_hca].",
				"WARNING Invalid MC_NIC_PEER_AFFINITY rule 'mlx5_0'. Expected local_hca=peer_hca[,peer_hca].", unmapped}},
		{"0.3.14", map[string]string{"MC_ENABLE_HCA_PEER_AFFINITY": "true", "MC_NIC_PEER_AFFINITY": "mlx5_0=mlx5_1"}, nil},
	} {
		if got := initLines(t, c.v, c.env, true); !slices.Equal(got, c.want) {
			t.Errorf("%s %v:\n got %q\nwant %q", c.v, c.env, got, c.want)
		}
	}
}

// initLines are the knob lines of a bare TransferEngine's initialize
// (P2PHANDSHAKE, tcp, no RNIC): the WARNING and ERROR lines, and the INFO
// lines about knobs when info is set.
func initLines(t *testing.T, version string, env map[string]string, info bool) []string {
	t.Helper()
	var got []string
	py := te.NewPy(te.Config{Profile: mooncake.MustProfile(version), Env: env, Host: te.Host{Name: "h"}, Ports: ports{},
		Log: mlog.Func(func(level, text string) {
			switch {
			case strings.Contains(text, "No RDMA devices found"), strings.Contains(text, "Local segment descriptor"),
				strings.HasPrefix(text, "Metrics reporting is disabled"): // every engine's, not a knob's
			case level == mlog.Warning || level == mlog.Error || info && strings.Contains(text, "MC_"):
				got = append(got, level+" "+text)
			}
		})}, nil, nil)
	if rc := py.Initialize(context.Background(), "127.0.0.1", te.P2PHandshake, "tcp", ""); rc != 0 {
		t.Fatalf("%s: initialize = %d (%q)", version, rc, got)
	}
	return got
}

// How many times a bare TransferEngine prints config.cpp's lines: real
// 0.3.4 … 0.3.11.post1 and 0.3.14 once, 0.3.12.post1 and 0.3.13.post1
// twice, with MC_MAX_SGE=0 MC_IB_TC=abc (REAL-FINDINGS §104).
func TestBareEngineConfigLoads(t *testing.T) {
	env := map[string]string{"MC_MAX_SGE": "0", "MC_IB_TC": "abc"}
	const sge = "WARNING Ignore value from environment variable MC_MAX_SGE"
	for _, c := range []struct {
		v     string
		loads int
	}{{"0.3.4", 1}, {"0.3.9", 1}, {"0.3.11.post1", 1}, {"0.3.12.post1", 2}, {"0.3.13.post1", 2}, {"0.3.14", 1}} {
		n := 0
		for _, l := range initLines(t, c.v, env, false) {
			if l == sge {
				n++
			}
		}
		if n != c.loads {
			t.Errorf("%s: %q printed %d times, want %d", c.v, sge, n, c.loads)
		}
	}
}

// "Transfer engine auto discovery is enabled" comes after the engine's
// init at 0.3.6 … 0.3.7.post2 (real 0.3.7.post2: after "TcpTransport:
// listen on port", REAL-FINDINGS §11), before it from 0.3.8, and
// never up to 0.3.5 (MC_MS_AUTO_DISC=1 turns auto-discovery on there).
func TestAutoDiscoveryLineOrder(t *testing.T) {
	const enabled = "Transfer engine auto discovery is enabled for protocol: tcp"
	for _, c := range []struct {
		version string
		after   bool // after TcpTransport's listen line; absent when neither
		printed bool
	}{
		{"0.3.5", false, false},
		{"0.3.6", true, true},
		{"0.3.7.post2", true, true},
		{"0.3.8.post1", false, true},
		{"0.3.9", false, true},
	} {
		p, err := mooncake.ProfileFor(c.version)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		e := te.New(te.Config{Profile: p, Host: te.Host{Name: "n"}, Ports: ports{}, Env: map[string]string{"MC_MS_AUTO_DISC": "1"},
			Log: mlog.Func(func(_, text string) { lines = append(lines, text) })})
		if err := e.InitStore(context.Background(), "127.0.0.1:17781", te.P2PHandshake, "tcp", nil); err != nil {
			t.Fatalf("%s: %v", c.version, err)
		}
		at := slices.Index(lines, enabled)
		listen := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "TcpTransport: listen on port") })
		switch {
		case (at >= 0) != c.printed:
			t.Errorf("%s: enabled line printed %v, want %v: %q", c.version, at >= 0, c.printed, lines)
		case c.printed && listen >= 0 && (at > listen) != c.after:
			t.Errorf("%s: enabled line at %d, listen at %d, want after %v: %q", c.version, at, listen, c.after, lines)
		}
	}
}
