package te

import (
	"strings"

	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// configWarned are the knobs loadGlobalConfig (config.cpp) reads, in its
// order, whose invalid value the model takes as Mooncake does and whose
// line it prints: the text, level and release range come from the knob
// table (mooncake.Knobs, "Ignore value from environment variable X").
// MC_MTU is not here: an invalid MC_MTU exits the process at import up to
// v0.3.11.post1 (client.LoadGlobalConfig prints it); the RPC port pair is
// checked together (ValidatePortRange, loadGlobalConfig).
//
// The RDMA and handshake knobs (mooncake/knobtable_te.go) print nothing
// else in the model: real 0.3.9, 0.3.12.post1, 0.3.13.post1 and 0.3.14
// printed these lines in this order and set up (REAL-FINDINGS §98).
var configWarned = []configKnob{
	{name: "MC_NUM_CQ_PER_CTX"},
	{name: "MC_NUM_COMP_CHANNELS_PER_CTX"},
	// NCCL_IB_GID_INDEX is read when MC_GID_INDEX is unset; the line
	// names MC_GID_INDEX either way (config.cpp v0.3.0:49-59).
	{name: "MC_GID_INDEX", alias: "NCCL_IB_GID_INDEX"},
	{name: "MC_PKEY_INDEX"},
	{name: "MC_MAX_CQE_PER_CTX"},
	{name: "MC_MAX_EP_PER_CTX"},
	{name: "MC_NUM_QP_PER_EP"},
	{name: "MC_MAX_SGE"},
	{name: "MC_MAX_WR"},
	{name: "MC_MAX_INLINE"},
	{name: "MC_HANDSHAKE_PORT"},
	{name: "MC_WORKERS_PER_CTX"},
	{name: "MC_SLICE_SIZE"},
	// A taken value logs INFO "Barex set MC_MIN_REG_SIZE=N" (config.cpp
	// v0.3.9:178; real 0.3.9, 0.3.13.post1, 0.3.14: REAL-FINDINGS §102).
	{name: "MC_MIN_REG_SIZE", taken: func(e *Engine, pv mooncake.Value) {
		e.logf(mlog.Info, "Barex set MC_MIN_REG_SIZE=%d", pv.Uint)
	}},
	{name: "MC_MAX_MR_SIZE"},
	// The RDMA pool's max_retry_cnt (Engine.rdmaMaxRetry).
	{name: "MC_RETRY_CNT"},
	{name: "MC_AUTO_GID_MAX_RETRIES"},
	{name: "MC_TE_METADATA_REFRESH_INTERVAL_SECONDS"},
	// Up to 0.3.11.post1 a word aborts the process at import
	// (client.LoadGlobalConfig); 0 or less is this line.
	{name: "MC_HANDSHAKE_LISTEN_BACKLOG"},
	{name: "MC_RDMA_RAIL_PAUSE_SECONDS"},
	{name: "MC_SLICE_TIMEOUT"},
	{name: "MC_CONN_PAUSE_TTL_MS"},
	{name: "MC_CONTEXT_PAUSE_TTL_MS"},
	// The RPC port range, read between MC_LOG_DIR and MC_FRAGMENT_RATIO
	// (Engine.rpcPortRange).
	{check: (*Engine).rpcPortRange},
	{name: "MC_FRAGMENT_RATIO"},
	// 0.3.12+: parseBoolConfigEnv's line; MC_NIC_PEER_AFFINITY's one line
	// per rejected rule; then the ERROR when MC_ENABLE_DEST_DEVICE_AFFINITY
	// is set too (real 0.3.12.post1, 0.3.13.post1, 0.3.14: §102).
	{name: "MC_ENABLE_HCA_PEER_AFFINITY"},
	{name: "MC_NIC_PEER_AFFINITY"},
	{check: func(e *Engine) {
		if line := mooncake.HCAPeerAffinityConflict(e.cfg.Profile.Version, e.cfg.Env); line != "" {
			e.logf(mlog.Error, "%s", line)
		}
	}},
	{name: "MC_LOG_RDMA_SLICE_AFFINITY"},
	{name: "MC_TRACK_RDMA_POSTED_SLICES"},
	{name: "MC_ENABLE_PARALLEL_REG_MR"},
	{name: "MC_MAX_CONCURRENT_REG_MR"},
	{name: "MC_EFA_NIC_SELECTION"},
	{name: "MC_HIP_KFD_PIN_FIX"},
	// 0.3.14 (real: config.cpp:754, :773); 0.3.13's Environ lines are the
	// store client's (stderr level, models/client/environ.go), not here.
	{name: "MC_EFA_CQ_THREADS"},
	{name: "WITH_NVIDIA_PEERMEM"},
	{name: "MC_ENDPOINT_STORE_TYPE"},
	{name: "MC_IB_TC"},
	{name: "MC_IB_SL"},
	{name: "MC_IB_PCI_RELAXED_ORDERING"},
	{check: (*Engine).mlx5UDPSports},
	{name: "MC_MLX5_QP_LAG_PORT_BALANCE"},
}

// mlx5UDPSports is loadGlobalConfig's MC_MLX5_QP_UDP_SPORTS, from
// 0.3.11.post1 (config.cpp v0.3.11.post1:375-408, v0.3.12.post1:600-634,
// main@3b5a594; absent at v0.3.11): a comma list, each entry trimmed of
// spaces and tabs (an empty one skipped) and read by std::stoi; the first
// entry outside 0..65535 or without a number warns and ends the read, and
// the whole list is dropped with a second warning. Real 0.3.12.post1,
// 0.3.13.post1, 0.3.14 (setup/te-env-values-ignored).
func (e *Engine) mlx5UDPSports() {
	v, ok := e.env("MC_MLX5_QP_UDP_SPORTS")
	if !ok || v == "" || !e.cfg.Profile.Version.AtLeast("0.3.11.post1") {
		return
	}
	for _, item := range strings.Split(v, ",") {
		item = strings.Trim(item, " \t")
		if item == "" {
			continue
		}
		n, parsed := mooncake.Stoi(item)
		switch {
		case !parsed:
			e.logf(mlog.Warning, "Invalid MC_MLX5_QP_UDP_SPORTS entry: %s. Error: stoi", item)
		case n < 0 || n > 65535:
			e.logf(mlog.Warning, "MC_MLX5_QP_UDP_SPORTS entry out of range: %s", item)
		default:
			continue
		}
		e.logf(mlog.Warning, "Ignore MC_MLX5_QP_UDP_SPORTS entirely due to parse errors")
		return
	}
}

// configKnob is one step of loadGlobalConfig's reads: a knob (with the
// variable read when it is unset), what config.cpp logs after keeping a
// set value, or a check of several knobs at once (no name).
type configKnob struct {
	name, alias string
	taken       func(e *Engine, pv mooncake.Value)
	check       func(e *Engine)
}
