package client

import (
	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// exitKnobs are the environment variables whose invalid value makes
// globalConfig() end the process: MC_MTU exits 1 (mooncake.Rule.
// ExitOnInvalid; its line is printed here at every release), a word in
// MC_HANDSHAKE_LISTEN_BACKLOG throws out of an uncaught std::stoi up to
// 0.3.11.post1 (ParseStoiAbort: SIGABRT, real 0.3.9; its other lines are
// models/te's).
var exitKnobs = []struct {
	name      string
	logAlways bool
}{{"MC_MTU", true}, {"MC_HANDSHAKE_LISTEN_BACKLOG", false}}

// LoadGlobalConfig is the transfer engine's globalConfig(), which a static
// initializer of mooncake.store runs at import, before any constructor:
// up to v0.3.11.post1 an invalid MC_MTU is logged and the process exits 1
// (config.cpp exit(EXIT_FAILURE); real 0.3.4 … 0.3.11.post1 exit on
// `from mooncake.store import …`). The engines call it where SGLang's
// process imports the module: before its first store.
func LoadGlobalConfig(p mooncake.Profile, env map[string]string, log mlog.Logger) error {
	for _, k := range exitKnobs {
		v, ok := env[k.name]
		if !ok {
			continue
		}
		pv := mooncake.ParseKnob(p.Version, k.name, v, true)
		if pv.Log != "" && (k.logAlways || pv.Exit != "") {
			log.Log(pv.Level, pv.Log)
		}
		if pv.Signal != "" {
			// std::terminate: the message, then abort().
			log.Log(mlog.Stderr, pv.Exit)
			log.Log(mlog.Stderr, "  what():  stoi")
			return &engine.ProcessDied{Signal: pv.Signal, Reason: pv.Exit}
		}
		if pv.Exit != "" {
			return &engine.ProcessDied{Exit: 1, Reason: pv.Exit}
		}
	}
	return nil
}
