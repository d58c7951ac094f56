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
// with the paused mooncake_client and readFully gives up: at its 300 s
// deadline from 0.3.10.post2 (real 0.3.11.post1, 0.3.12.post1), at the
// first EAGAIN (SO_RCVTIMEO, 60 s) from 0.3.13 with another line (real
// 0.3.13.post1, 0.3.14); up to 0.3.10.post1 readFully has no deadline and
// prints neither.
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
		{"0.3.14", 0},
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

// TestHandshakeEAGAIN: from 0.3.13 the handshake's read ends at the first
// EAGAIN, SO_RCVTIMEO's 60 s into each key's handshake (real 0.3.13.post1
// and 0.3.14: 60 s into the get, then 61 s later), with
// readString's WARNING; the rest as at 0.3.12.
func TestHandshakeEAGAIN(t *testing.T) {
	world := catalogScenario(t, "io/peer-paused-handshake-timeout")
	perKey := func(at, key string) []string {
		return []string{
			at + " mooncake:tp0 WARNING Socket read timed out: expected 8 bytes, actual 0 bytes",
			at + " mooncake:tp0 WARNING readString: incomplete handshake length, got: 0",
			at + " mooncake:tp0 ERROR SocketHandShakePlugin: unexpected handshake message type",
			at + " mooncake:tp0 ERROR Failed to submit all transfers, error code is InvalidArgument",
			at + " mooncake:tp0 ERROR Failed to submit transfer operation for key: " + key,
		}
	}
	want := append(perKey("1m2.09s", "page0_0_k"), perKey("2m2.09s", "page0_0_v")...)
	for _, v := range []string{"0.3.13.post1", "0.3.14"} {
		rs := runVersion(t, world, v)
		if rs.Verdict != "pass" {
			t.Errorf("%s: %s %s", v, rs.Verdict, rs.Reason)
		}
		var got []string
		for _, e := range rs.Trace.Events() {
			if e.Kind == "log" && e.Source == "mooncake:tp0" && (strings.Contains(e.Text, "Socket read") || strings.Contains(e.Text, "readString") ||
				strings.Contains(e.Text, "SocketHandShakePlugin") || strings.Contains(e.Text, "Failed to submit")) {
				got = append(got, e.At.String()+" "+e.Source+" "+e.Level+" "+e.Text)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", v, got, want)
		}
	}
}

// TestHandshakeAbandonedAnswered: resumed (the remedy's clear_faults),
// the paused mooncake_client answers each handshake the reader gave up,
// on its closed socket: writeFully's EPIPE and the listener's line, per
// handshake (real 0.3.11.post1 … 0.3.14). They print at the
// SIGCONT, after the main phase and before the remedy's window opens, as
// on real: neither phase observes them.
func TestHandshakeAbandonedAnswered(t *testing.T) {
	world := catalogScenario(t, "io/peer-paused-handshake-timeout")
	for _, c := range []struct{ version, at string }{
		{"0.3.10.post1", ""},
		{"0.3.12.post1", "10m2.09s"},
		{"0.3.14", "2m2.09s"},
	} {
		rs := runVersion(t, world, c.version)
		var got []string
		for _, e := range rs.Trace.Events() {
			if e.Kind == "phase" || e.Kind == "fault" && e.Text == "clear all" || e.Source == "client" && e.Level == "ERROR" && e.Text != "Local segment descriptor not found" {
				got = append(got, e.At.String()+" "+e.Source+" "+e.Text)
			}
		}
		if c.at == "" {
			// The get waits for the peer: the world's own bound ends it,
			// nothing is given up.
			if slices.ContainsFunc(got, func(l string) bool { return strings.Contains(l, "Broken pipe") }) {
				t.Errorf("%s: %q", c.version, got)
			}
			continue
		}
		want := []string{
			"45ms harness main",
			c.at + " fault clear all",
			c.at + " client Socket write failed: Broken pipe [32]",
			c.at + " client SocketHandShakePlugin: failed to send message: malformed json format, check tcp connection",
			c.at + " client Socket write failed: Broken pipe [32]",
			c.at + " client SocketHandShakePlugin: failed to send message: malformed json format, check tcp connection",
			c.at + " harness remedy",
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", c.version, got, want)
		}
		for _, obs := range [][]string{rs.Observed.Logs, rs.Remedy.Logs} {
			if slices.ContainsFunc(obs, func(l string) bool { return strings.Contains(l, "Broken pipe") }) {
				t.Errorf("%s: a phase observed the answers: %q", c.version, obs)
			}
		}
	}
}

// runVersion runs world at one Mooncake release on sim.
func runVersion(t *testing.T, world *scenarios.Scenario, version string) scenarios.Result {
	t.Helper()
	sc := *world
	sc.Mooncake.Versions = []string{version}
	rs := scenarios.Run(context.Background(), &sc, sim.New(), scenarios.Options{Seed: 1, Version: version})
	if len(rs) != 1 || rs[0].Trace == nil {
		t.Fatalf("%s: %d results", version, len(rs))
	}
	return rs[0]
}
