package sim_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// TestHandshakeReadTimeout: io/peer-paused-handshake-timeout on the model
// per release. With MC_DISABLE_METACACHE each key's transfer handshakes
// with the paused mooncake_client and readFully gives up at its 300 s
// deadline, from 0.3.10.post2 (real 0.3.11.post1, 0.3.12.post1); up to
// 0.3.10.post1 readFully has no deadline and from 0.3.13 an EAGAIN ends it
// at 60 s with another line: neither prints this one.
func TestHandshakeReadTimeout(t *testing.T) {
	world := catalogScenario(t, "io/peer-paused-handshake-timeout")
	const timedOut = "Socket read timed out, timeout: 300, deadline: "
	for _, c := range []struct {
		version string
		lines   int
	}{
		{"0.3.10.post1", 0},
		{"0.3.10.post2", 2},
		{"0.3.12.post1", 2},
		{"0.3.13.post1", 0},
	} {
		sc := *world
		sc.Mooncake.Versions = []string{c.version}
		rs := scenarios.Run(context.Background(), &sc, sim.New(), scenarios.Options{Seed: 1, Version: c.version})
		if len(rs) != 1 {
			t.Fatalf("%s: %d results", c.version, len(rs))
		}
		var got []string
		for _, l := range rs[0].Observed.Logs {
			if strings.HasPrefix(l, timedOut) {
				got = append(got, l)
			}
		}
		if len(got) != c.lines {
			t.Errorf("%s: %d timeout lines %q, want %d", c.version, len(got), got, c.lines)
			continue
		}
		if c.lines == 0 {
			continue
		}
		if rs[0].Verdict != "pass" {
			t.Errorf("%s: %s %s", c.version, rs[0].Verdict, rs[0].Reason)
		}
		// One key after the other, each 300 s into its handshake: the
		// deadline is the model clock's (real: steady_clock since boot).
		want := []string{timedOut + "302090000000, read 0 out of 8 bytes", timedOut + "602090000000, read 0 out of 8 bytes"}
		if !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", c.version, got, want)
		}
	}
}
