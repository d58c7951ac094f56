package te_test

import (
	"context"
	"slices"
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
