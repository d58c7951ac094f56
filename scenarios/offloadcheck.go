package scenarios

// offsetAllocatorBackend reserves its whole data file at its size limit
// on creation (fallocate): MOONCAKE_OFFLOAD_TOTAL_SIZE_LIMIT_BYTES,
// 2 TiB by default (file_storage.cpp v0.3.11.post1). A real run of a
// world that names it without the limit filled this host's disk.
const (
	offsetAllocatorBackend = "offset_allocator_storage_backend"
	offloadBackendEnv      = "MOONCAKE_OFFLOAD_STORAGE_BACKEND_DESCRIPTOR"
	offloadLimitEnv        = "MOONCAKE_OFFLOAD_TOTAL_SIZE_LIMIT_BYTES"
)

// checkOffloadReserve refuses a scenario whose SGLang or mooncake_client
// environment picks the offset-allocator backend while none of its
// environments sets the size limit.
func (d *decoder) checkOffloadReserve(sc *Scenario) {
	envs := sc.envs()
	if c := sc.Topology.Client; c != nil {
		env := Env{}
		for k, v := range c.Env {
			env[k] = &v
		}
		envs = append(envs, placedEnv{c.Pos, env})
	}
	limited := false
	for _, e := range envs {
		if v, ok := e.Env[offloadLimitEnv]; ok && v != nil {
			limited = true
		}
	}
	if limited {
		return
	}
	for _, e := range envs {
		if v := e.Env[offloadBackendEnv]; v != nil && *v == offsetAllocatorBackend {
			d.at(e.Pos, "%s=%s reserves its data file at %s (2 TiB when unset): set %s (e.g. \"67108864\")",
				offloadBackendEnv, offsetAllocatorBackend, offloadLimitEnv, offloadLimitEnv)
			return
		}
	}
}
