package client

import (
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// environBools are the booleans Environ's constructor reads that the model
// reads too, in environ.cpp's order (main@3b5a594:188,196,197,201; real
// 0.3.13.post1 printed its warnings in this order).
var environBools = []string{"MC_USE_IPV6", "MC_FORCE_TCP", "MC_FORCE_HCA", "WITH_NVIDIA_PEERMEM"}

// environWarnings prints Environ's "[Mooncake] Warning: invalid value …"
// lines (std::cerr) for them: Environ is a process singleton first built
// by the store Client's constructor (client_service.cpp:419 at 3b5a594),
// so once per process, before the transfer engine's init lines.
func environWarnings(p mooncake.Profile, env map[string]string, log mlog.Logger) {
	for _, k := range environBools {
		v, ok := env[k]
		if !ok {
			continue
		}
		if pv := mooncake.ParseKnob(p.Version, k, v, true); pv.Log != "" && pv.Level == mooncake.LevelStderr {
			log.Log(mlog.Stderr, pv.Log)
		}
	}
}
