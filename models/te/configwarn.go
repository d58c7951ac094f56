package te

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
var configWarned = []struct{ name, alias string }{
	{"MC_NUM_CQ_PER_CTX", ""},
	{"MC_NUM_COMP_CHANNELS_PER_CTX", ""},
	// NCCL_IB_GID_INDEX is read when MC_GID_INDEX is unset; the line
	// names MC_GID_INDEX either way (config.cpp v0.3.0:49-59).
	{"MC_GID_INDEX", "NCCL_IB_GID_INDEX"},
	{"MC_PKEY_INDEX", ""},
	{"MC_MAX_CQE_PER_CTX", ""},
	{"MC_MAX_EP_PER_CTX", ""},
	{"MC_NUM_QP_PER_EP", ""},
	{"MC_MAX_SGE", ""},
	{"MC_MAX_WR", ""},
	{"MC_MAX_INLINE", ""},
	{"MC_HANDSHAKE_PORT", ""},
	// A taken value logs INFO "Barex set MC_MIN_REG_SIZE=N" here
	// (loadGlobalConfig; REAL-FINDINGS §102).
	{"MC_MIN_REG_SIZE", ""},
	{"MC_MAX_MR_SIZE", ""},
	{"MC_AUTO_GID_MAX_RETRIES", ""},
	{"MC_TE_METADATA_REFRESH_INTERVAL_SECONDS", ""},
	// Up to 0.3.11.post1 a word aborts the process at import
	// (client.LoadGlobalConfig); 0 or less is this line.
	{"MC_HANDSHAKE_LISTEN_BACKLOG", ""},
	{"MC_RDMA_RAIL_PAUSE_SECONDS", ""},
	{"MC_SLICE_TIMEOUT", ""},
	{"MC_CONN_PAUSE_TTL_MS", ""},
	{"MC_CONTEXT_PAUSE_TTL_MS", ""},
	{"MC_FRAGMENT_RATIO", ""},
	// 0.3.12+: parseBoolConfigEnv's line; MC_NIC_PEER_AFFINITY's one line
	// per rejected rule; then the ERROR when MC_ENABLE_DEST_DEVICE_AFFINITY
	// is set too (real 0.3.12.post1, 0.3.13.post1, 0.3.14: §102).
	{"MC_ENABLE_HCA_PEER_AFFINITY", ""},
	{"MC_NIC_PEER_AFFINITY", ""},
	{hcaPeerConflict, ""},
	{"MC_LOG_RDMA_SLICE_AFFINITY", ""},
	{"MC_TRACK_RDMA_POSTED_SLICES", ""},
	{"MC_ENABLE_PARALLEL_REG_MR", ""},
	{"MC_MAX_CONCURRENT_REG_MR", ""},
	{"MC_EFA_NIC_SELECTION", ""},
	{"MC_HIP_KFD_PIN_FIX", ""},
	// 0.3.14 (real: config.cpp:754, :773); 0.3.13's Environ lines are the
	// store client's (stderr level, models/client/environ.go), not here.
	{"MC_EFA_CQ_THREADS", ""},
	{"WITH_NVIDIA_PEERMEM", ""},
	{"MC_ENDPOINT_STORE_TYPE", ""},
	{"MC_IB_TC", ""},
	{"MC_IB_SL", ""},
	{"MC_IB_PCI_RELAXED_ORDERING", ""},
	{"MC_MLX5_QP_LAG_PORT_BALANCE", ""},
}

// hcaPeerConflict marks where loadGlobalConfig checks the two peer-device
// affinities together (mooncake.HCAPeerAffinityConflict, an ERROR).
const hcaPeerConflict = "(MC_ENABLE_HCA_PEER_AFFINITY with MC_ENABLE_DEST_DEVICE_AFFINITY)"
