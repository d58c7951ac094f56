package client

import (
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// environKnobs are the knobs Environ's constructor reads whose rejected
// text the model prints, in environ.cpp's order (main@3b5a594:160-204;
// real 0.3.13.post1 printed its warnings in this order, §96, §98): a
// rule's stderr-level line (Rule.InvalidLevel) or its Environ line
// (Rule.Environ, next to config.cpp's glog line, which models/te prints).
var environKnobs = []string{
	"MC_NUM_CQ_PER_CTX", "MC_NUM_COMP_CHANNELS_PER_CTX", "MC_IB_TC", "MC_IB_PCI_RELAXED_ORDERING",
	"MC_MAX_CQE_PER_CTX", "MC_MAX_EP_PER_CTX", "MC_NUM_QP_PER_EP", "MC_MAX_SGE", "MC_MAX_WR", "MC_MAX_INLINE",
	"MC_DISABLE_METACACHE", "MC_HANDSHAKE_LISTEN_BACKLOG", "MC_HANDSHAKE_MAX_LENGTH", "MC_REDIS_DB_INDEX",
	"MC_FRAGMENT_RATIO", "MC_ENABLE_DEST_DEVICE_AFFINITY", "MC_USE_IPV6", "MC_ENABLE_PARALLEL_REG_MR",
	"MC_FORCE_TCP", "MC_FORCE_HCA", "MC_FORCE_MNNVL", "MC_INTRA_NVLINK", "MC_PATH_ROUNDROBIN",
	"WITH_NVIDIA_PEERMEM", "MC_EFA_CQ_THREADS", "MOONCAKE_STORE_CHECKSUM",
	"MOONCAKE_AWS_USE_VIRTUAL_ADDRESSING", "MOONCAKE_AWS_USE_HTTPS",
	"MOONCAKE_AWS_CONNECT_TIMEOUT_MS", "MOONCAKE_AWS_REQUEST_TIMEOUT_MS",
}

// environWarnings prints Environ's "[Mooncake] Warning: invalid value …"
// lines (std::cerr) for them: Environ is a process singleton first built
// by the store Client's constructor (client_service.cpp:419 at 3b5a594),
// so once per process, before the transfer engine's init lines.
func environWarnings(p mooncake.Profile, env map[string]string, log mlog.Logger) {
	for _, k := range environKnobs {
		v, ok := env[k]
		if !ok {
			continue
		}
		pv := mooncake.ParseKnob(p.Version, k, v, true)
		if pv.Log != "" && pv.Level == mooncake.LevelStderr {
			log.Log(mlog.Stderr, pv.Log)
		}
		if pv.EnvironLog != "" {
			log.Log(mlog.Stderr, pv.EnvironLog)
		}
	}
}
