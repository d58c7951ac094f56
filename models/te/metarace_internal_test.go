package te

import (
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// TestLocalDescRaced pins PR 1373's release: up to 0.3.8.post1 a
// registration meeting the P2P daemon's metadata exchange kills the
// process (SIGSEGV, or SIGABRT after std::terminate's line), from 0.3.9
// nothing happens; an engine with a metadata service has no daemon.
func TestLocalDescRaced(t *testing.T) {
	for _, c := range []struct {
		version   string
		handshake bool
		throw     bool
		signal    string // "" = no death
	}{
		{"0.3.8.post1", true, false, "SIGSEGV"},
		{"0.3.8.post1", true, true, "SIGABRT"},
		{"0.3.8.post1", false, true, ""},
		{"0.3.9", true, false, ""},
		{"0.3.9", true, true, ""},
		{"0.3.12.post1", true, true, ""},
	} {
		p, err := mooncake.ProfileFor(c.version)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		log := mlog.Func(func(_, text string) { lines = append(lines, text) })
		e := &Engine{cfg: Config{Profile: p, Log: log}, handshake: c.handshake}
		err = e.LocalDescRaced(c.throw)
		d, died := engine.AsProcessDied(err)
		switch {
		case c.signal == "" && err != nil:
			t.Errorf("%+v: %v, want no death", c, err)
		case c.signal != "" && (!died || d.Signal != c.signal):
			t.Errorf("%+v: %v, want death by %s", c, err, c.signal)
		}
		const terminate = "terminate called after throwing an instance of 'Json::LogicError'"
		if got := slices.Contains(lines, terminate); got != (c.signal == "SIGABRT") {
			t.Errorf("%+v: terminate line printed %v", c, got)
		}
	}
}
