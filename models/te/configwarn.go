package te

// configWarned are the knobs loadGlobalConfig (config.cpp) reads, in its
// order, whose invalid value the model takes as Mooncake does and whose
// line it prints: the text, level and release range come from the knob
// table (mooncake.Knobs, "Ignore value from environment variable X").
// MC_MTU is not here: an invalid MC_MTU exits the process at import up to
// v0.3.11.post1 (client.LoadGlobalConfig prints it); the RPC port pair is
// checked together (ValidatePortRange, loadGlobalConfig).
var configWarned = []struct{ name, alias string }{
	// NCCL_IB_GID_INDEX is read when MC_GID_INDEX is unset; the line
	// names MC_GID_INDEX either way (config.cpp v0.3.0:49-59).
	{"MC_GID_INDEX", "NCCL_IB_GID_INDEX"},
	{"MC_HANDSHAKE_PORT", ""},
	{"MC_MAX_MR_SIZE", ""},
	// 0.3.14 (real: config.cpp:773); 0.3.13's Environ line is the store
	// client's (stderr level, models/client/environ.go), not here.
	{"WITH_NVIDIA_PEERMEM", ""},
}
