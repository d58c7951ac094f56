package client

import (
	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// exitKnobs are the environment variables whose invalid value makes
// globalConfig() exit the process (mooncake.Rule.ExitOnInvalid).
var exitKnobs = []string{"MC_MTU"}

// LoadGlobalConfig is the transfer engine's globalConfig(), which a static
// initializer of mooncake.store runs at import, before any constructor:
// up to v0.3.11.post1 an invalid MC_MTU is logged and the process exits 1
// (config.cpp exit(EXIT_FAILURE); real 0.3.4 … 0.3.11.post1 exit on
// `from mooncake.store import …`). The engines call it where SGLang's
// process imports the module: before its first store.
func LoadGlobalConfig(p mooncake.Profile, env map[string]string, log mlog.Logger) error {
	for _, k := range exitKnobs {
		v, ok := env[k]
		if !ok {
			continue
		}
		pv := mooncake.ParseKnob(p.Version, k, v, true)
		if pv.Log != "" {
			log.Log(pv.Level, pv.Log)
		}
		if pv.Exit != "" {
			return &engine.ProcessDied{Exit: 1, Reason: pv.Exit}
		}
	}
	return nil
}
