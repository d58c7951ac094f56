package mooncake

// KnobAreas: the names the wheels hold (knobsurface.txt) that the knob
// table does not, by the part of Mooncake that reads them and why the
// table leaves them out. A name goes to the first area with a prefix of
// it; a name the table holds is never looked up here. Tabling a name is
// adding its Knob (docs/CONTRIBUTING.md); an area left with no untabled
// name fails TestKnobAreas.
var KnobAreas = []KnobArea{
	{[]string{"MC_METADATA_"}, "the wheel's HTTP metadata server (http_metadata_server.py, 0.3.14)",
		"read by the metadata server's process, not SGLang's (the engines' MC_METADATA_HTTP_TOKEN is tabled); not tabled yet"},
	{[]string{"MC_STORE_CLIENT_METRIC", "MC_TE_METRIC", "MC_YLT_LOG_LEVEL"}, "metrics and log levels",
		"change what is reported, not what fails; not tabled yet"},
	{[]string{"MC_STORE_LOCAL_HOT_", "MC_STORE_PIN", "MC_STORE_NUMA_", "MC_STORE_HCA_", "MC_STORE_REPLICA_SCORING", "MC_STORE_REGISTER_SPDK", "MC_STORE_CLUSTER_ID", "MC_DISABLE_MMAP_ARENA", "MC_MMAP_ARENA_"},
		"store client placement, pinning and local hot cache (0.3.13+)", "features SGLang's HiCache does not configure; not tabled yet"},
	{[]string{"MC_EFA_", "MC_LIBFABRIC_PATH", "MC_LIBFABRIRIC_PATH"}, "the EFA transport (libfabric)",
		"needs EFA devices this machine lacks"},
	{[]string{"MC_NOF_", "MOONCAKE_NVME_KV_"}, "NVMe-oF transport and the NVMe KV backend",
		"needs NVMe-oF targets this machine lacks"},
	{[]string{"MC_CXL_"}, "the CXL transport", "needs a CXL device this machine lacks"},
	{[]string{"MC_RDMA_", "MC_USE_RDMA_TWOSIDED", "MC_MLX5_QP_UDP_SPORTS", "MC_HANDSHAKE_MAX_NOTIFY_ENTRIES"},
		"RDMA notify, data-direct and worker tuning (0.3.13+)", "needs an RNIC this machine lacks; not tabled yet"},
	{[]string{"MC_INTRANODE_NVLINK", "MC_USE_NVLINK_IPC", "MC_DEVICE_API_", "MC_FORCE_SHM", "MC_CUSTOM_TOPO_JSON", "MC_MAX_EP_P"},
		"intra-node GPU transports, topology and expert parallelism", "needs GPUs this machine lacks"},
	{[]string{"MC_USE_TENT", "MC_USE_TEV1", "MC_TENT_CONF", "MC_TE_FILTERS", "MC_MS_FILTERS"},
		"transfer engine selection (TENT) and transport filters (0.3.13+)", "not tabled yet"},
	{[]string{"MOONCAKE_S3_", "MOONCAKE_OSS_"}, "object storage backends (S3, OSS)",
		"a backend SGLang's HiCache does not configure; not tabled yet"},
	{[]string{"MOONCAKE_DFS_", "MOONCAKE_ENABLE_DFS", "MOONCAKE_DISTRIBUTED_", "MOONCAKE_OFFLOAD_", "MOONCAKE_OFFSET_", "MOONCAKE_BUCKET_", "MOONCAKE_DISK_EVICTION_", "MOONCAKE_SCANMETA_", "MOONCAKE_USE_URING", "MOONCAKE_SNAPSHOT_LOCAL_PATH", "MOONCAKE_KVCS_EFC_CONFIG", "MC_FILEREAD_WORKERS"},
		"SSD offload and distributed file system storage beyond the tabled offload knobs",
		"not tabled yet (the offload knobs the catalog's standalone/ssd-offload worlds use are)"},
	{[]string{"MOONCAKE_CONFIG_PATH", "MOONCAKE_ENABLE_EMBEDDED_MASTER", "MOONCAKE_HOST_ID", "MOONCAKE_MASTER_SERVICE_SNAPSHOT_TEST_SKIP_CLEANUP", "MC_PRC_MIN_PORT", "MC_PRC_MAX_PORT"},
		"the store's config file, embedded master, host id, a test hook, a port message", "not tabled yet"},
	{[]string{"MC_DEFAULT", "MC_END", "MC_TE_MEAUATUSH"}, "texts no getenv is known to read (a constant's name, packed text)",
		"not a knob as far as the source read shows"},
}
