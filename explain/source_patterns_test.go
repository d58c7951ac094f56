package explain_test

import (
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/explain"
)

// TestSourcePatternsNameTheirClass feeds, for each class whose patterns
// come from Mooncake's (or its callers') format strings, a synthetic log
// built from those format strings with made-up values to Diagnose: the
// class (or a scenario it links) must be the named cause, first. A pattern
// edited so it no longer matches its own source line, or another class
// grown to claim the same lines, fails here.
func TestSourcePatternsNameTheirClass(t *testing.T) {
	cat, fp := allFingerprints(t)
	cls := allClasses(t)
	// The releases a class's cause needs, when the log says them: a client
	// that pings a directly named master (v0.3.6.post1 …) is not expired.
	versions := map[string]string{"ha-client-direct-master": "0.3.6"}
	// A slow reattach prints the HA failover world's own lines
	// (etcd/ha-master-failover); only the wait tells it apart, so it is a
	// cause, not the first one.
	causeOnly := map[string]bool{"ha-client-slow-reattach": true}
	for _, tc := range []struct{ class, log string }{
		// tcp_transport.cpp / client.cpp v0.3.4.post2.
		{"tcp-port-collision", "I1201 10:00:00.000000 100 tcp_transport.cpp:241] TcpTransport: listen on port 15001\n" +
			"E1201 10:00:00.000100 100 client.cpp:183] tcp_transport_install_failed error_message=\"bind: Address already in use\"\n"},
		// rdma_context.cpp v0.3.8.post1, rdma_transport.cpp.
		{"rdma-port-down", "W1201 10:00:00.000000 100 rdma_context.cpp:514] Device mlx5_0 port not active\n" +
			"E1201 10:00:00.000100 100 rdma_context.cpp:81] Failed to open device mlx5_0 on port 1 with GID 3\n" +
			"E1201 10:00:00.000200 100 rdma_transport.cpp:662] RdmaTransport: No available RNIC\n"},
		// topology.cpp v0.3.10 … v0.3.12.post1 (auto-discovery).
		{"rdma-port-down", "I1201 10:00:00.000000 100 topology.cpp:93] mlx5_1:1 is not active (state: 1)\n" +
			"W1201 10:00:00.000100 100 topology.cpp:135] Device mlx5_1 has no active ports, skipping\n"},
		// types.h v0.3.4.post2 Replica::mark_complete's CHECK_EQ.
		{"master-check-abort", "F1201 10:00:00.000000 100 types.h:307] Check failed: status_ == ReplicaStatus::PROCESSING (COMPLETE vs. PROCESSING)\n" +
			"*** Check failure stack trace: ***\n"},
		// glibc's dlerror through Python's ImportError.
		{"mooncake-install-broken", "Traceback (most recent call last):\n" +
			"ImportError: /usr/local/lib/python3.10/dist-packages/mooncake/engine.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN8mooncake3fooEv\n"},
		// ascend_direct_transport.cpp v0.3.8.post1.
		{"ascend-transport-setup", "E1201 10:00:00.000000 100 ascend_direct_transport.cpp:265] Failed to initialize AdxlEngine, status: 1\n" +
			"E1201 10:00:00.000100 100 ascend_direct_transport.cpp:110] AscendDirectTransport: InitAdxlEngine failed, ret: -1\n"},
		// hccl_transport_mem_c.cpp v0.3.8.post1, vllm-ascend mooncake_connector.py.
		{"ascend-pd-link-failed", "E1201 10:00:00.000000 100 hccl_transport_mem_c.cpp:528] hccl_socket connect timeout, local devicePhyId: 0, target devicePhyId: 8\n" +
			"ERROR 12-01 10:00:01 [mooncake_connector.py:387] Failed to transfer KV cache for request req-1: Mooncake transfer failed, ret: -1\n"},
		// grpc-go http2_client.go under etcd_wrapper.go v0.3.12.
		{"etcd-keepalive-too-many-pings", "2026/12/01 10:00:00 ERROR: [transport] Client received GoAway with error code ENHANCE_YOUR_CALM and debug data equal to ASCII \"too_many_pings\".\n"},
		// ha_helper.cpp, master_service.cpp v0.3.6; the client's setting.
		{"ha-client-direct-master", "MOONCAKE_MASTER=10.0.0.1:50051\n" +
			"I1201 10:00:00.000000 100 ha_helper.cpp:66] Successfully elected self as leader\n" +
			"I1201 10:01:00.000000 101 master_service.cpp:957] client_id=1234-5678, action=client_expired\n" +
			"I1201 10:01:00.000100 101 master_service.cpp:1021] client_id=1234-5678, action=unmount_expired_segment\n"},
		// client_service.cpp v0.3.12.post1's ping loop, a Ping blocked 120 s.
		{"ha-client-slow-reattach", "E1201 10:00:00.000000 100 client_service.cpp:3844] Failed to ping master\n" +
			"E1201 10:02:00.000000 100 client_service.cpp:3852] Failed to ping master for 3 times; fetching latest master view and reconnecting\n" +
			"I1201 10:02:00.100000 100 client_service.cpp:3880] Reconnected to master 10.0.0.3:50051\n"},
		// store_py.cpp get_buffer before PR 308.
		{"store-not-found-as-error", "E1201 10:00:00.000000 100 store_py.cpp:588] Query failed for key: prefix@0@abc123 with error: UNKNOWN_ERROR\n"},
		// rdma_transport.cpp, transfer_task.cpp v0.3.6.
		{"buffer-not-registered", "E1201 10:00:00.000000 100 rdma_transport.cpp:294] Memory region not registered by any active device(s): 0x7f0000001000\n" +
			"E1201 10:00:00.000100 100 transfer_task.cpp:510] Failed to submit all transfers, error code is AddressNotRegistered\n"},
		// LMCache's vllm_v1_adapter.py spec read while None.
		{"lmcache-side-bug", "  File \"/usr/lib/python3/site-packages/lmcache/integration/vllm/vllm_v1_adapter.py\", line 700, in wait_for_save\n" +
			"AttributeError: 'NoneType' object has no attribute 'skip_leading_tokens'\n"},
		// client_service.cpp v0.3.12.post1 BatchGet; vLLM's store worker.py.
		{"kv-lease-expired-before-read", "W1201 10:00:00.000000 100 client_service.cpp:1483] lease_expired_before_data_transfer_completed key=model@tp_rank:0@abc123\n" +
			"WARNING 12-01 10:00:00 [worker.py:900] Failed to get 1 Mooncake keys from sub-batch (batch_keys=8, first_failures=[('model@tp_rank:0@abc123', -707)])\n"},
		// ascend_direct_transport.cpp v0.3.8.post1 TransferSync.
		{"ascend-hccl-transfer-failed", "E1201 10:00:00.000000 100 ascend_direct_transport.cpp:836] Transfer slice failed with status: 100000\n" +
			"I1201 10:00:00.000100 100 ascend_direct_transport.cpp:843] transfer failed and disconnect to:10.0.0.2:20001\n"},
		// transfer_executor_base.cpp v0.3.12.post1; HCCL's exception_handler.cc.
		{"ascend-hccl-transfer-failed", "E1201 10:00:00.000000 100 transfer_executor_base.cpp:704] Transfer failed to: 10.0.0.2:20001, errmsg: EI9999 inner error\n" +
			"[ERROR] HCCL(100,):2026-12-01-10:00:00.000.000 [exception_handler.cc:23] [101]HcclBatchPut: HcclException, what: some failure, code: 4\n"},
		// SGLang 0.5.17's MooncakeTransferEngine wrapper under PD's conn.py on
		// a wheel before v0.3.5 (real: the 0.3.4 wheel).
		{"version-skew", "AttributeError: 'mooncake.engine.TransferEngine' object has no attribute 'batch_register_memory'. Did you mean: 'register_memory'?\n" +
			"  File \"/usr/lib/python3/site-packages/sglang/srt/disaggregation/mooncake/conn.py\", line 282, in register_buffer_to_engine\n" +
			"RuntimeError: Mooncake's batch register requires a newer version of mooncake-transfer-engine. Please upgrade Mooncake.\n"},
		{"version-skew", "RuntimeError: Transfer thread failed because of Mooncake's batch transfer requires mooncake-transfer-engine >= 0.3.4.post2. Please upgrade Mooncake by 'pip install mooncake-transfer-engine --upgrade'. Prefill instance with bootstrap_port=8998 is dead.\n"},
		// transfer_metadata_plugin.cpp v0.3.6: PLOG of listen() on the probed socket.
		{"handshake-port-reuseaddr", "E1201 10:00:00.000000 100 transfer_metadata_plugin.cpp:680] SocketHandShakePlugin: listen(): Address already in use [98]\n"},
		// A wheel built against CUDA 12 (build_wheel.sh excludes libcudart).
		{"mooncake-install-broken", "Traceback (most recent call last):\n" +
			"ImportError: libcudart.so.12: cannot open shared object file: No such file or directory\n"},
		// http_metadata_server.py 0.3.14 run().
		{"http-metadata-token-required", "RuntimeError: HTTP Metadata Server refuses to bind 0.0.0.0:8080 without an authentication token: anyone who can reach this port could read and rewrite cluster metadata.\n"},
		// s3_adapter_config.cpp (0.3.14 wheel), an environment of 0.3.13.post1's names.
		{"s3-env-renamed", "export MOONCAKE_AWS_S3_ENDPOINT=http://minio:9000\n" +
			"E1201 10:00:00.000000 100 s3_adapter_config.cpp:97] S3 requires MOONCAKE_S3_ENDPOINT (or AWS_ENDPOINT_URL), MOONCAKE_S3_BUCKET and a non-empty region\n"},
		// tcp_transport.cpp v0.3.12.post1:1099/1320 and transfer_task.cpp
		// :790: a transfer's connect to the peer timed out (its world,
		// io/peer-unreachable-transient, is named).
		{"transient-transfer-failure", "E1201 10:02:14.000000 100 tcp_transport.cpp:1099] TcpTransport::getConnection failed to create connection to 10.0.0.2:16213. Error: connect: Connection timed out\n" +
			"E1201 10:02:14.000100 100 tcp_transport.cpp:1320] TcpTransport::startTransfer failed to get connection to 10.0.0.2:16213\n" +
			"E1201 10:02:14.000200 100 transfer_task.cpp:790] Batch 94129951880528 completed with task failures: task_ids=[0]\n"},
		// The pattern-free classes of the later batches, from the format
		// strings, frame names and tool messages the class tables cite beside
		// each pattern (Mooncake at its tags, HCCL/CANN, glibc, pip/uv, vLLM,
		// SGLang, SPDK, the linker).
		{"ascend-hccl-transport-build-unsupported", "cmake .. -DUSE_ASCEND=ON\n" +
			"[ 41%] Building CXX object mooncake-transfer-engine/src/transport/ascend_transport/hccl_transport/ascend_transport_c/CMakeFiles/ascend_transport_mem.dir/hccl_transport_mem_c.cpp.o\n" +
			"In file included from /root/Mooncake/mooncake-transfer-engine/src/transport/ascend_transport/hccl_transport/ascend_transport_c/hccl_transport_mem_c.cpp:31:\n" +
			"/root/Mooncake/mooncake-transfer-engine/include/transport/ascend_transport/hccl_transport/hccl_transport_mem_c.h:23:10: fatal error: adapter_hccp_common.h: No such file or directory\n" +
			"compilation terminated.\n" +
			"make[2]: *** [mooncake-transfer-engine/src/transport/ascend_transport/hccl_transport/ascend_transport_c/CMakeFiles/ascend_transport_mem.dir/build.make:76: mooncake-transfer-engine/src/transport/ascend_transport/hccl_transport/ascend_transport_c/CMakeFiles/ascend_transport_mem.dir/hccl_transport_mem_c.cpp.o] Error 1\n"},
		{"ascend-kv-port-overlap", "I1201 10:00:00.000000 100 utils.cpp:219] Find available between 20000 and 20100\n" +
			"INFO 12-01 10:00:01 [mooncake_connector.py:301] KVCacheSendingThread started listening on path: tcp://10.0.0.1:20042. Thread: tp_rank=0, pp_rank=0, pcp_rank=0\n" +
			"ERROR 12-01 10:00:01 [mooncake_connector.py:312] Mooncake KVCacheSendingThread encountered exception. Thread: tp_rank=0, pp_rank=0, listening_path=tcp://10.0.0.1:20042. Error: Address already in use (addr='tcp://10.0.0.1:20042')\n" +
			"zmq.error.ZMQError: Address already in use (addr='tcp://10.0.0.1:20042')\n" +
			"RuntimeError: KV Cache sending/receiving thread failed to start.\n"},
		{"ascend-store-unsupported", "I1201 10:00:00.000000 100 transfer_engine.cpp:44] Transfer Engine starting. Server: 10.0.0.1:12345, Metadata: http://10.0.0.1:8080/metadata, ip_or_host_name: 10.0.0.1, rpc_port: 12345\n" +
			"I1201 10:00:00.000100 100 client.cpp:172] Storage root directory is not set. persisting data is disabled.\n" +
			"E1201 10:00:00.000200 100 client.cpp:201] unsupported_protocol protocol=ascend\n" +
			"E1201 10:00:00.000300 100 client.cpp:249] Failed to initialize transfer engine\n" +
			"E1201 10:00:00.000400 100 store_py.cpp:224] Failed to create client\n"},
		{"ascend-visible-devices-remap", "I1201 10:00:00.000000 100 ascend_direct_transport.cpp:553] Set base port to:20000\n" +
			"W1201 10:00:00.000100 100 ascend_direct_transport.cpp:571] Device id is 4, ASCEND_RT_VISIBLE_DEVICES is 4,5, which is unexpected.\n" +
			"I1201 10:00:00.000200 100 ascend_direct_transport.cpp:578] Find available between 20400 and 20500\n" +
			"(VllmWorker rank=1 pid=200) ERROR 12-01 10:00:01 [multiproc_executor.py:500] ValueError: Not enough physical devices available for DP rank 1. Expected at least 4 devices, but found 2 in PHYSICAL_DEVICES.\n"},
		{"hccl-listen-port-conflict", "[ERROR] HCCL(4321,python3):2026-12-01-10:00:00.000.100 [hccl_socket.cc:110] [4321][InitGroupStage][RanktableDetect] socket type[0], listen on ip[192.168.1.10] and specific port[16666] fail. Please check the port status and whether the port is being used by other process.\n" +
			"[ERROR] HCCL(4321,python3):2026-12-01-10:00:00.000.200 [hccl_comm.cc:100] [4321][HcclComm][Init]errNo[0x0000000005000007] hccl initialize failed\n" +
			"[PID: 4321] 2026-12-01-10:00:00.000.300 Communication_Error_Bind_IP_Port(EI0019): Failed to enable listening for the host network adapter socket. Reason: The IP address 192.168.1.10 and port 16666 have already been bound.\n" +
			"RuntimeError: createHCCLComm:torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:1200 HCCL function error: hcclCommInitRootInfoConfig(numRanks, &rootInfo, rank, config, &(comm->hcclComm_)), error code is 7\n"},
		{"connector-config-rejected", "INFO 12-01 10:00:00 [factory.py:51] Creating v1 connector with name: MooncakeStoreConnector and engine_id: 1234-5678\n" +
			"Traceback (most recent call last):\n" +
			"  File \"/usr/local/lib/python3.12/dist-packages/vllm/distributed/kv_transfer/kv_connector/v1/mooncake/store/connector.py\", line 130, in __init__\n" +
			"    self._validate_kv_cache_config(vllm_config, kv_cache_config)\n" +
			"  File \"/usr/local/lib/python3.12/dist-packages/vllm/distributed/kv_transfer/kv_connector/v1/mooncake/store/connector.py\", line 118, in _validate_kv_cache_config\n" +
			"    raise ValueError(\n" +
			"ValueError: MooncakeStoreConnector does not support: group 1: MambaSpec with block_size=1056 != cache_config.block_size=16 (mamba_cache_mode != 'align')\n"},
		{"cuda-build-on-non-cuda-host", "INFO 12-01 10:00:00 [__init__.py:239] Automatically detected platform rocm.\n" +
			"Traceback (most recent call last):\n" +
			"  File \"/usr/local/lib/python3.10/site-packages/lmcache/v1/gpu_connector/gpu_connectors.py\", line 25, in <module>\n" +
			"    import lmcache.c_ops as lmc_ops\n" +
			"ImportError: libcudart.so.12: cannot open shared object file: No such file or directory\n"},
		{"deps-script-unsupported-distro", "Mooncake Dependencies Installer\n" +
			"This script will install all required dependencies for Mooncake.\n" +
			"The following components will be installed:\n" +
			"  - System packages (build tools, libraries)\n" +
			"  - yalantinglibs\n" +
			"  - Git submodules\n" +
			"  - Go 1.23.8\n" +
			"\n" +
			"=== Updating package lists ===\n" +
			"./dependencies.sh: line 96: apt-get: command not found\n" +
			"\u2717 ERROR: Failed to update package lists\n"},
		{"exit-teardown-abort", "I1201 10:00:00.000000 100 transfer_engine.cpp:80] Transfer Engine uninstalled\n" +
			"free(): invalid pointer\n" +
			"\n" +
			"Thread 1 \"python3\" received signal SIGABRT, Aborted.\n" +
			"#0  __pthread_kill_implementation (no_tid=0, signo=6, threadid=140000000000000) at ./nptl/pthread_kill.c:44\n" +
			"#1  0x00007f0000001000 in __GI_raise (sig=sig@entry=6) at ../sysdeps/posix/raise.c:26\n" +
			"#2  0x00007f0000002000 in __GI_abort () at ./stdlib/abort.c:79\n" +
			"#3  0x00007f0000003000 in __libc_message (action=action@entry=do_abort, fmt=fmt@entry=0x7f0000004000 \"%s\\n\") at ../sysdeps/posix/libc_fatal.c:155\n" +
			"#4  0x00007f0000005000 in malloc_printerr (str=str@entry=0x7f0000006000 \"free(): invalid pointer\") at ./malloc/malloc.c:5664\n" +
			"#5  0x00007f0000007000 in _int_free (av=<optimized out>, p=<optimized out>, have_lock=have_lock@entry=0) at ./malloc/malloc.c:4439\n" +
			"#6  0x00007f0000008000 in __GI___libc_free (mem=<optimized out>) at ./malloc/malloc.c:3391\n" +
			"#7  0x00007f0000009000 in ?? () from /usr/local/Ascend/ascend-toolkit/latest/lib64/libascend_trace.so\n" +
			"#8  0x00007f000000a000 in __run_exit_handlers (status=0, listp=0x7f000000b000 <__exit_funcs>, run_list_atexit=run_list_atexit@entry=true, run_dtors=run_dtors@entry=true) at ./stdlib/exit.c:113\n" +
			"#9  0x00007f000000c000 in __GI_exit (status=<optimized out>) at ./stdlib/exit.c:143\n" +
			"#10 0x00007f000000d000 in __libc_start_call_main (main=main@entry=0x5600000000a0 <main>, argc=argc@entry=2, argv=argv@entry=0x7ffc00000000) at ../sysdeps/nptl/libc_start_call_main.h:74\n"},
		{"integration-connector-unsupported", "INFO 12-01 10:00:00 [factory.py:51] Creating v1 connector with name: MooncakeConnector and engine_id: 1234-5678\n" +
			"2026-12-01T10:00:01.000000Z ERROR dynamo_llm::kv_router::prefill_router: prefill routing failed error=No disaggregated params in prefill response: prefill worker returned no kv_transfer_params\n"},
		{"integration-mooncake-import-unguarded", "[2026-12-01 10:00:00 TP0] Please install mooncake for using remote instance transfer engine: pip install mooncake\n" +
			"Traceback (most recent call last):\n" +
			"  File \"/usr/local/lib/python3.10/dist-packages/sglang/srt/model_executor/model_runner.py\", line 320, in initialize\n" +
			"    self.remote_instance_transfer_engine_weight_info = register_memory_region_v2(\n" +
			"ModuleNotFoundError: No module named 'mooncake'\n"},
		{"master-check-abort", "I1201 10:00:00.000000 100 master_service.cpp:265] Tenant quota policy store initialized\n" +
			"F1201 10:00:01.000000 101 tenant_quota.cpp:280] Check failed: bytes <= state.used_bytes (4096 vs. 0)\n" +
			"*** Check failure stack trace: ***\n" +
			"    @     0x7f0000001000  google::LogMessage::Fail()\n" +
			"    @     0x7f0000002000  mooncake::TenantQuotaTable::ReleasePartial()\n" +
			"Aborted (core dumped)\n"},
		{"nof-build-deps-missing", "=== Installing SPDK ===\n" +
			"Cloning SPDK from https://github.com/spdk/spdk.git...\n" +
			"Checking out SPDK version v23.01.1...\n" +
			"Initializing SPDK submodules...\n" +
			"Installing SPDK dependencies...\n" +
			"Configuring SPDK with RDMA support...\n" +
			"Using default SPDK env in /root/Mooncake/extern/spdk/lib/env_dpdk\n" +
			"Using default DPDK in /root/Mooncake/extern/spdk/dpdk/build\n" +
			"--with-rdma requires libverbs and librdmacm.\n" +
			"Please install then re-run this script.\n" +
			"\u2717 ERROR: Failed to configure SPDK\n" +
			"$ cmake .. -DUSE_NOF=ON && make -j\n" +
			"/usr/bin/ld: cannot find -lisal: No such file or directory\n" +
			"/usr/bin/ld: cannot find -lelf: No such file or directory\n" +
			"/usr/bin/ld: libmooncake_store.a(nof_segment.cpp.o): in function `mooncake::NofSegment::Open()':\n" +
			"nof_segment.cpp:(.text+0x1a4): undefined reference to `mooncake::SpdkWrapper::GetInstance()'\n" +
			"collect2: error: ld returned 1 exit status\n"},
		{"wheel-platform-unavailable", "$ uv pip install mooncake-transfer-engine==0.3.7\n" +
			"  \u00d7 No solution found when resolving dependencies:\n" +
			"  \u2570\u2500\u25b6 Because mooncake-transfer-engine==0.3.7 has no wheels with a matching platform tag (e.g., `manylinux_2_35_aarch64`) and you require mooncake-transfer-engine==0.3.7, we can conclude that your requirements are unsatisfiable.\n" +
			"\n" +
			"      hint: Wheels are available for `mooncake-transfer-engine` (v0.3.7) on the following platform: `manylinux_2_35_x86_64`\n"},
		{"hip-ipc-cross-node", "I1201 10:00:00.000000 100 transfer_engine_impl.cpp:412] HIP transport installed for intra-node GPU P2P\n" +
			"E1201 10:00:00.000100 100 hip_transport.cpp:111] HIPTransport: pidfd_open error: No such process ( 4242 37)\n" +
			"E1201 10:00:00.000200 100 hip_transport.cpp:151] HIPTransport: failed to open fd\n"},
		{"rdma-driver-quirk", "E1201 10:00:00.000000 100 rdma_endpoint.cpp:367] [Handshake] Failed to modify QP to RESET: Invalid argument [22]\n" +
			"E1201 10:00:00.000100 101 transfer_metadata.cpp:769] Handshake rejected by 10.0.0.2:12345: Failed to modify QP to RESET: Invalid argument\n" +
			"E1201 10:00:00.000200 101 worker_pool.cpp:242] Worker: Cannot make connection for endpoint: 10.0.0.2:12345@irdma0, mark it inactive\n"},
		{"rdma-endpoint-destroy-race", "I1201 10:00:00.000000 100 endpoint_store.cpp:208] 10.0.0.2:12345@mlx5_0 evicted\n" +
			"W1201 10:00:00.000100 100 rdma_endpoint.cpp:89] Outstanding work requests found, CQ will not be generated\n" +
			"Fatal Python error: Segmentation fault\n" +
			"#0  0x00007f0000001000 in mlx5_post_send () from /usr/lib/x86_64-linux-gnu/libibverbs/libmlx5-rdmav34.so\n" +
			"#1  0x00007f0000002000 in mooncake::RdmaEndPoint::submitPostSend(std::vector<mooncake::Transport::Slice*>&, std::vector<mooncake::Transport::Slice*>&) () from /usr/local/lib/python3.10/dist-packages/mooncake/engine.so\n"},
		{"rdma-init-error-segfault", "E1201 10:00:00.000000 100 rdma_context.cpp:116] Failed to create completion queue: Cannot allocate memory [12]\n" +
			"W1201 10:00:00.000100 100 rdma_transport.cpp:425] Disable device mlx5_3\n" +
			"Fatal Python error: Segmentation fault\n" +
			"#0  0x00007f0000001000 in ibv_destroy_cq () from /lib/x86_64-linux-gnu/libibverbs.so.1\n" +
			"#1  0x00007f0000002000 in mooncake::RdmaContext::deconstruct() () from /usr/local/lib/python3.10/dist-packages/mooncake/engine.so\n" +
			"#2  0x00007f0000003000 in mooncake::RdmaContext::~RdmaContext() () from /usr/local/lib/python3.10/dist-packages/mooncake/engine.so\n" +
			"#3  0x00007f0000004000 in mooncake::RdmaTransport::initializeRdmaResources() () from /usr/local/lib/python3.10/dist-packages/mooncake/engine.so\n"},
		{"rdma-multi-nic-unroutable-pair", "MOONCAKE_DEVICE=mlx5_0,mlx5_1\n" +
			"W1201 10:00:00.000000 100 worker_pool.cpp:448] Worker: Cannot make connection for endpoint: 10.0.0.2:12345@mlx5_1, pausing peer rail and retrying through an alternate peer RNIC\n" +
			"W1201 10:00:00.000100 100 worker_pool.cpp:1314] Rail paused: peer=10.0.0.2:12345@mlx5_1 error_count=3 pause_ms=30000\n" +
			"E1201 10:00:00.000200 100 worker_pool.cpp:759] Worker: Cannot redispatch slice because all peer rails are paused for target 1, selected peer=10.0.0.2:12345@mlx5_0, retry_cnt=2\n"},
		{"store-client-crash", "python3[4242]: segfault at 0 ip 00007f0000001234 sp 00007f00000fe000 error 4 in store.so[7f0000000000+200000] likely on CPU 3 (core 3, socket 0)\n" +
			"Fatal Python error: Segmentation fault\n" +
			"\n" +
			"Thread 0x00007f0000000001 (most recent call first):\n" +
			"  File \"/usr/local/lib/python3.10/dist-packages/sglang/srt/mem_cache/storage/mooncake_store/mooncake_store.py\", line 612 in _get_batch_zero_copy_impl\n" +
			"  File \"/usr/local/lib/python3.10/dist-packages/sglang/srt/mem_cache/storage/mooncake_store/mooncake_store.py\", line 540 in batch_get_v1\n" +
			"#3  0x00007f0000001000 in mooncake::RealClient::batch_get_into(std::vector<std::string> const&, std::vector<void*> const&, std::vector<unsigned long> const&) () from /usr/local/lib/python3.10/dist-packages/mooncake/store.so\n"},
		{"tcp-error-log-segfault", "E1201 10:00:00.000000 100 tcp_transport.cpp:177] Session::writeBody failed. Attempt to write data hello-world using buffer hello-world. Error: Broken pipe (value: 32), total_transferred_bytes_: 0, current transferred_bytes: 0\n" +
			"Fatal Python error: Segmentation fault\n" +
			"#0  0x00007f0000001000 in __strlen_avx2 () from /lib/x86_64-linux-gnu/libc.so.6\n" +
			"#1  0x00007f0000002000 in std::operator<< <std::char_traits<char> >(std::basic_ostream<char, std::char_traits<char> >&, char const*) () from /lib/x86_64-linux-gnu/libstdc++.so.6\n" +
			"#2  0x00007f0000003000 in mooncake::Session::writeBody()::{lambda(std::error_code const&, unsigned long)#1}::operator()(std::error_code const&, unsigned long) const () from /usr/local/lib/python3.10/dist-packages/mooncake/engine.so\n"},
		{"te-concurrency-race", "terminate called after throwing an instance of 'Json::LogicError'\n" +
			"  what():  in Json::Value::resolveReference(key, end): requires objectValue\n" +
			"Fatal Python error: Aborted\n" +
			"#6  0x00007f0000001000 in mooncake::TransferMetadata::encodeSegmentDesc(mooncake::TransferMetadata::SegmentDesc const&, Json::Value&) () from /usr/local/lib/python3.10/dist-packages/mooncake/engine.so\n" +
			"#7  0x00007f0000002000 in mooncake::TransferMetadata::receivePeerMetadata(Json::Value const&, Json::Value&) () from /usr/local/lib/python3.10/dist-packages/mooncake/engine.so\n"},
		// The classes and catalog signatures with few patterns, from the
		// format strings the class tables cite beside each (Mooncake at its tags,
		// yalantinglibs, the 0.3.14 wheel's Python, the integrations' files).
		{"benign-error-log", "E1205 10:00:00.000000 5501 file_storage.cpp:382] BatchQuerySlices failed with error: INVALID_REPLICA\n" +
			"E1205 10:00:10.000000 5501 file_storage.cpp:382] BatchQuerySlices failed with error: INVALID_REPLICA\n"},
		{"duplicate-key-put", "I1205 10:00:00.000000 2201 master_service.cpp:2432] key=sglang_hicache_0f3a_0_k, info=object_already_exists\n" +
			"I1205 10:00:00.000100 2301 client.cpp:452] object_already_exists key count 8\n"},
		{"eviction-starved", "I1205 10:00:00.000000 1201 master_service.cpp:5666] [EVICT-TRIGGER] memory_ratio=0.97 high_watermark=0.95 need_mem_eviction=1 eviction_ratio=0.05\n" +
			"I1205 10:00:00.000300 1201 master_service.cpp:6922] [EVICT-RESULT] evicted_count=0, eviction_base=5120, actual_evict_ratio=0, target_evict_ratio=0.07\n" +
			"W1205 10:00:00.000400 1201 master_service.cpp:6930] [EVICT] No memory freed this cycle; 5120 objects deferred for disk offload. Consider lowering eviction_high_watermark_ratio.\n" +
			"I1205 10:00:00.000500 1201 master_service.cpp:5677] [EVICT-DONE] BatchEvict execution completed.\n"},
		{"ha-stale-master-pool-logs", "E1205 10:00:00.000000 9001 client_service.cpp:1906] Failed to ping master for 3 times; fetching latest master view and reconnecting\n" +
			"I1205 10:00:01.000000 9001 ha_helper.cpp:106] Get master address: 10.0.0.12:50051\n" +
			"I1205 10:00:01.000100 9001 client_service.cpp:1931] Reconnected to master 10.0.0.12:50051\n" +
			"2025-12-05 10:00:11.000000 INFO [9002] [coro_rpc_client.hpp:945] client_id 7 begin to connect 10.0.0.11:50051\n" +
			"2025-12-05 10:00:11.000300 WARNING [9002] [coro_rpc_client.hpp:989] client_id 7 failed:Connection refused\n" +
			"2025-12-05 10:00:13.000000 WARNING [9002] [client_pool.hpp:207] reconnect client{0x7f2b44001230},host:{10.0.0.11:50051} out of max limit, stop retry. connect failed\n" +
			"2025-12-05 10:00:43.000000 INFO [9002] [coro_rpc_client.hpp:945] client_id 8 begin to connect 10.0.0.11:50051\n" +
			"2025-12-05 10:00:43.000300 WARNING [9002] [coro_rpc_client.hpp:989] client_id 8 failed:Connection refused\n"},
		{"ipv6-master-ipv4-bind", "I1205 10:00:00.000000 3001 master.cpp:515] Master service started on port 50051, max_threads=4, enable_metric_reporting=1, metrics_port=9003, default_kv_lease_ttl=5000, default_kv_soft_pin_ttl=1800000, allow_evict_soft_pinned_objects=1, eviction_ratio=0.05, eviction_high_watermark_ratio=0.95, enable_ha=0, enable_offload=0, etcd_endpoints=, client_ttl=10, rpc_thread_num=4, rpc_port=50051, rpc_address=0.0.0.0, rpc_conn_timeout_seconds=0, rpc_enable_tcp_no_delay=1, rpc protocol=tcp, cluster_id=mooncake_cluster, root_fs_dir=, global_file_segment_size=0\n" +
			"2025-12-05 10:00:01.000000 INFO [4002] [coro_rpc_client.hpp:945] client_id 1 begin to connect ::1:50051\n" +
			"2025-12-05 10:00:01.000200 WARNING [4002] [coro_rpc_client.hpp:989] client_id 1 failed:Connection refused\n" +
			"2025-12-05 10:00:03.000000 WARNING [4002] [client_pool.hpp:207] reconnect client{0x7f3a1c000b70},host:{::1:50051} out of max limit, stop retry. connect failed\n" +
			"E1205 10:00:03.000100 4002 master_client.cpp:234] Client not available\n"},
		{"kv-lease-expired-before-read", "W1205 10:00:00.000000 4401 client_service.cpp:1483] lease_expired_before_data_transfer_completed key=req-12_layer3_k\n" +
			"E1205 10:00:00.000100 4401 real_client.cpp:3118] BatchGet failed for key 'req-12_layer3_k': LEASE_EXPIRED\n"},
		{"local-buffer-exhausted", "E1205 10:00:00.000000 6601 store_py_parallel_write.h:52] Failed to allocate buffer for put_tensor_with_parallelism key: layer0_shard3\n" +
			"E1205 10:00:00.000100 6601 real_client.cpp:1834] Failed to allocate buffer for put operation, key: layer0_shard4\n"},
		{"local-memcpy-cross-process", "I1205 10:00:00.000000 7001 transfer_task.cpp:439] MC_STORE_MEMCPY not set, auto-detected: TCP-only environment, memcpy enabled\n" +
			"I1205 10:00:05.000000 7001 transfer_task.cpp:560] Memcpy transfer submitted to worker pool with 1 operations\n" +
			"*** SIGSEGV (@0x7f1c2a400000) received by PID 7001 (TID 0x7f1b8dfff640) from PID 709885952; stack trace: ***\n" +
			"    @     0x7f1c3e1a2520 (unknown)\n" +
			"    @     0x7f1c3e2fb9bd __memmove_avx_unaligned_erms\n" +
			"    @     0x7f1c1b6a4c21 mooncake::MemcpyWorkerPool::workerThread()\n"},
		{"metadata-cluster-id-mismatch", "I1205 10:00:00.000000 4101 transfer_metadata.cpp:160] Using metadata cluster ID: mooncake/cluster-b/\n" +
			"E1205 10:00:01.000000 4101 transfer_metadata_plugin.cpp:282] GET http://10.0.0.5:8080/metadata?key=mooncake%2Fcluster-b%2Fram%2F10.0.0.6%3A15001 http=404 body: metadata not found\n" +
			"W1205 10:00:01.000100 4101 transfer_metadata.cpp:480] Failed to retrieve segment descriptor, name 10.0.0.6:15001\n"},
		{"metadata-plugin-missing", "F1205 10:00:00.000000 3101 transfer_metadata_plugin.cpp:592] Unable to find metadata storage plugin etcd with conn string: etcd://10.0.0.5:2379\n" +
			"*** Check failure stack trace: ***\n"},
		{"no-segment-space", "W1205 10:00:00.000000 7701 rpc_service.cpp:560] BatchPutStart failed for 4 keys due to insufficient space. Consider lowering eviction_high_watermark_ratio or mounting more segments.\n" +
			"W1205 10:00:00.000100 7702 client_service.cpp:2461] BatchPut failed for 4 keys due to insufficient space. Consider lowering eviction_high_watermark_ratio or mounting more segments.\n"},
		{"setup-missing-config", "Traceback (most recent call last):\n" +
			"  File \"/usr/local/lib/python3.10/dist-packages/mooncake/mooncake_config.py\", line 306, in from_file\n" +
			"    raise ValueError(f\"Missing required config field: {field}\")\n" +
			"ValueError: Missing required config field: master_server_address\n"},
		{"ssd-offload-stalls-client", "I1205 10:00:00.000000 5001 real_client.cpp:4239] Time taken for batch_get_into_offload_object_internal: 31002345us\n" +
			"I1205 10:00:00.000100 5001 real_client.cpp:3556] Time taken for batch_get_into: 31004567us, read store: 1200us, with memory key count: 0, offload key count: 64\n" +
			"W1205 10:00:02.000000 6001 dummy_client.cpp:1127] Ping failed 1/3\n" +
			"W1205 10:00:05.000000 6001 dummy_client.cpp:1127] Ping failed 3/3\n" +
			"E1205 10:00:05.000100 6001 dummy_client.cpp:1132] RealClient lost, entering reconnection loop...\n" +
			"I1205 10:00:11.000000 5002 real_client.cpp:3909] client_id=6473201844911234_1122334455667788, action=client_expired\n" +
			"E1205 10:00:40.000000 5001 real_client.cpp:1158] client_id=6473201844911234_1122334455667788, error=shm_not_mapped\n"},
		{"ssd-offload-task-orphaned", "W1205 10:10:00.000000 8001 master_service.cpp:3345] Offloading task expired for key: req-77_layer0_k\n" +
			"W1205 10:10:00.000100 8001 master_service.cpp:3345] Offloading task expired for key: req-77_layer1_k\n" +
			"W1205 10:10:00.000200 8001 master_service.cpp:3345] Offloading task expired for key: req-77_layer2_k\n"},
		{"etcd/duplicate-local-hostname", "E1201 10:00:00.000000 100 tcp_transport.cpp:224] Session::readBody failed. Attempt to read data 0x7f3a10000000 using buffer 0x7f3a20000000. Error: End of file (value: 2)\n"},
		{"etcd/ha-failover-blackholed-master", "W1201 10:00:10.000000 100 client_service.cpp:620] Failed to switch to leader 10.0.0.12:50051: RPC_FAIL\n" +
			"E1201 10:02:10.000000 101 master_client.cpp:344] Client not available\n" +
			"E1201 10:02:10.000100 101 client_service.cpp:3845] Failed to ping master\n"},
		{"http-metadata-token-required", "Traceback (most recent call last):\n" +
			"  File \"<frozen runpy>\", line 198, in _run_module_as_main\n" +
			"  File \"<frozen runpy>\", line 88, in _run_code\n" +
			"  File \"/usr/local/lib/python3.11/site-packages/mooncake/http_metadata_server.py\", line 344, in <module>\n" +
			"    sys.exit(main())\n" +
			"             ^^^^^^\n" +
			"  File \"/usr/local/lib/python3.11/site-packages/mooncake/http_metadata_server.py\", line 322, in main\n" +
			"    server.run()\n" +
			"  File \"/usr/local/lib/python3.11/site-packages/mooncake/http_metadata_server.py\", line 112, in run\n" +
			"    raise RuntimeError(\n" +
			"RuntimeError: HTTP Metadata Server refuses to bind 0.0.0.0:8080 without an authentication token: anyone who can reach this port could read and rewrite cluster metadata. Set MC_METADATA_HTTP_TOKEN here and on every engine, bind a loopback address, or export MC_METADATA_HTTP_ALLOW_INSECURE=1 to keep the legacy open behavior.\n"},
		{"io/get-while-master-down", "E1201 10:00:00.000000 100 master_client.cpp:344] Client not available\n" +
			"E1201 10:00:00.000100 100 real_client.cpp:1070] Query failed for key: k0 with error: RPC_FAIL\n"},
		{"ipv6-address", "I1201 10:00:00.000000 100 transfer_engine_impl.cpp:115] Transfer Engine parseHostNameWithPort. server_name: fd00::1 port: 12001\n" +
			"E1201 10:00:00.000100 100 tcp_transport.cpp:814] Failed to set up IPv6 dual-stack listener: Address family not supported by protocol (error code: 97)\n" +
			"W1201 10:00:01.000000 100 transfer_task.cpp:1378] Invalid IPv6 endpoint format: [fd00::1\n"},
		{"nvlink-fabric-mem-unsupported", "cuMemCreate failed: 800\n"},
		{"peer-not-listening", "E1201 10:00:00.000000 100 transfer_metadata_plugin.cpp:979] SocketHandShakePlugin: connect()10.0.0.2:12001: Connection refused [111]\n" +
			"E1201 10:00:00.000100 100 transfer_metadata.cpp:690] Failed to retrieve segment descriptor, name 10.0.0.2:12001\n"},
		{"rdma-port-down", "W1201 10:00:00.000000 100 rdma_context.cpp:1204] Device mlx5_0 port not active\n" +
			"E1201 10:00:00.000200 100 rdma_transport.cpp:827] RdmaTransport: No available RNIC\n"},
		{"rdma-qp-exhausted", "E1201 10:00:00.000000 100 rdma_endpoint.cpp:145] Failed to create QP: Cannot allocate memory [12]\n" +
			"E1201 10:00:00.000100 100 transfer_metadata.cpp:1210] Handshake rejected by 10.0.0.2:12345: Local RDMA endpoint unavailable for mlx5_0 <- 10.0.0.1:12345@mlx5_1\n"},
		{"register/erdma-registration-total", "I1201 10:00:00.000000 100 client.cpp:520] Registering local memory: 16777216 bytes\n" +
			"E1201 10:00:00.100000 100 rdma_context.cpp:222] Failed to register memory 0x7efb94000000: Input/output error [5]\n" +
			"E1201 10:00:00.100100 100 client.cpp:575] register_local_memory_failed base=0x7efb94000000 size=1073741824, error=-1\n" +
			"E1201 10:00:00.100200 100 store_py.cpp:203] Failed to mount segment: INVALID_PARAMS\n"},
		{"register/segment-vs-max-mr-size", "I1201 10:00:00.000000 100 config.cpp:301] max_mr_size = 268435456\n" +
			"W1201 10:00:00.100000 100 rdma_context.cpp:199] The buffer length exceeds device max_mr_size, shrink it to 268435456: Success [0]\n"},
		{"rpc-protocol-mismatch", "MC_RPC_PROTOCOL=rdma\n" +
			"2026-12-01 10:00:01.000000 INFO     [102] [ib_socket.hpp:754] protocol error. connect to unknown protocol server7\n" +
			"E1201 10:00:01.000100 100 master_client.cpp:344] Client not available\n"},
		{"setup/http-duplicate-local-hostname", "E1201 10:00:00.000000 100 transfer_metadata_plugin.cpp:348] PUT http://127.0.0.1:8080/metadata?key=mooncake/rpc_meta/127.0.0.1:17784 http=400 body: Duplicate rpc_meta key not allowed\n" +
			"E1201 10:00:00.000100 100 transfer_metadata.cpp:1334] Failed to set location of 127.0.0.1:17784\n"},
		{"setup/http-metadata-unreachable", "E1201 10:00:00.000000 100 transfer_metadata_plugin.cpp:340] PUT http://10.0.0.9:8080/metadata?key=mooncake/rpc_meta/10.0.0.1:15001 curl: Couldn't connect to server err: Failed to connect to 10.0.0.9 port 8080 after 0 ms: Connection refused\n" +
			"E1201 10:00:00.000100 100 transfer_metadata.cpp:1334] Failed to set location of 10.0.0.1:15001\n" +
			"E1201 10:00:00.000200 100 client_service.cpp:420] Failed to initialize transfer engine, rc=-200\n"},
		{"tcp-ephemeral-port-exhaustion", "E1201 10:00:00.000000 100 tcp_transport.cpp:521] TcpTransport::startTransfer encountered an ASIO exception. Slice details - source_addr: 0x7f0000001000, length: 65536, opcode: 0, target_id: 1. Exception: connect: Cannot assign requested address\n"},
		{"hicache-host-batch-memcpy-unsupported", "[2025-08-01 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):\n" +
			"  File \"/usr/local/lib/python3.12/dist-packages/sgl_kernel/kvcacheio.py\", line 150, in transfer_kv_all_layer_direct_lf_pf\n" +
			"    torch.ops.sgl_kernel.transfer_kv_all_layer_direct_lf_pf.default(\n" +
			"RuntimeError: cudaMemcpyBatchAsync failed. failIdx=0 error=invalid argument\n"},
		{"lmcache-side-bug", "(VllmWorker rank=0 pid=4243) ERROR 12-01 10:00:00 [multiproc_executor.py:546] Traceback (most recent call last):\n" +
			"(VllmWorker rank=0 pid=4243) ERROR 12-01 10:00:00 [multiproc_executor.py:546]   File \"/usr/local/lib/python3.12/dist-packages/vllm/distributed/kv_transfer/kv_connector/v1/lmcache_connector.py\", line 88, in start_load_kv\n" +
			"(VllmWorker rank=0 pid=4243) ERROR 12-01 10:00:00 [multiproc_executor.py:546]   File \"/usr/local/lib/python3.12/dist-packages/lmcache/integration/vllm/vllm_v1_adapter.py\", line 702, in start_load_kv\n" +
			"(VllmWorker rank=0 pid=4243) ERROR 12-01 10:00:00 [multiproc_executor.py:546] KeyError: 'cmpl-7f3a-0'\n"},
		{"sglang-pd-side-bug", "Traceback (most recent call last):\n" +
			"  File \"/usr/local/lib/python3.12/dist-packages/sglang/srt/disaggregation/mooncake/conn.py\", line 712, in transfer_worker\n" +
			"    reqs_to_be_processed = self.transfer_infos[kv_chunk.room].values()\n" +
			"KeyError: 7340012345678901234\n" +
			"\n" +
			"During handling of the above exception, another exception occurred:\n" +
			"\n" +
			"Traceback (most recent call last):\n" +
			"  File \"/usr/lib/python3.12/threading.py\", line 1075, in _bootstrap_inner\n" +
			"    self.run()\n" +
			"  File \"/usr/local/lib/python3.12/dist-packages/sglang/srt/disaggregation/mooncake/conn.py\", line 790, in transfer_worker\n" +
			"    raise RuntimeError(\n" +
			"RuntimeError: Transfer thread failed because of 7340012345678901234. Prefill instance with bootstrap_port=8998 is dead.\n"},
		{"sglang-side-bug", "[2025-08-01 10:00:00 TP0] Mooncake Configuration loaded from env successfully.\n" +
			"Exception in thread Thread-5 (backup_thread_func):\n" +
			"Traceback (most recent call last):\n" +
			"  File \"/usr/lib/python3.12/threading.py\", line 1075, in _bootstrap_inner\n" +
			"    self.run()\n" +
			"  File \"/usr/lib/python3.12/threading.py\", line 1012, in run\n" +
			"    self._target(*self._args, **self._kwargs)\n" +
			"  File \"/usr/local/lib/python3.12/dist-packages/sglang/srt/managers/cache_controller.py\", line 880, in backup_thread_func\n" +
			"  File \"/usr/local/lib/python3.12/dist-packages/sglang/srt/mem_cache/storage/mooncake_store/mooncake_store.py\", line 330, in register_buffer\n" +
			"    ptr = tensor.data_ptr()\n" +
			"AttributeError: 'list' object has no attribute 'data_ptr'\n"},
		{"ssd-offload-duplicate-bucket", "E1201 10:00:00.000000 100 storage_backend.cpp:1793] Reserved key became duplicated before commit, bucket_id=17\n" +
			"E1201 10:00:00.000100 100 file_storage.cpp:624] Failed to store objects with error: OBJECT_ALREADY_EXISTS\n"},
		{"ssd-offload-readback-bug", "E1201 10:00:00.000000 100 storage_backend.cpp:1877] Bucket not found for key: prefix_0001_k, bucket_id=42\n" +
			"E1201 10:00:00.000100 100 file_storage.cpp:413] Batch load object failed,err_code = BUCKET_NOT_FOUND\n"},
		{"standalone-buffer-outside-shm", "E1201 10:00:00.000000 100 dummy_client.cpp:421] Invalid buffer address or size for registration: Buffer addr: 0x7f3a00100000, need addr: 0x7f3a00000000, buffer size: 1048576, need size: 4294967296\n" +
			"E1201 10:00:00.000100 200 real_client.cpp:418] Dummy buffer at 0x7f3a00100000 (size 1048576) not found in any mapped shared memory, client_id=8c1d2e3f-0000-0000-0000-000000000001\n"},
		{"standalone-ipc-registration", "E1201 10:00:00.000000 200 real_client.cpp:725] Failed to map shared memory from fd: 17, name: mooncake_shm_1, error: Bad file descriptor\n" +
			"E1201 10:00:00.000100 100 dummy_client.cpp:334] RealClient failed to map shared memory, error code: -1\n" +
			"E1201 10:00:00.000200 100 dummy_client.cpp:445] Failed to register SHM via IPC\n"},
		// real_client.cpp v0.3.12.post1 :2297, dummy_client.cpp :420, :491:
		// the passed fd mapped, its RegisterLocalMemory failed.
		{"standalone-ipc-registration", "I1201 10:00:00.000000 100 dummy_client.cpp:382] Connecting to IPC socket: @mooncake_client_50052.sock\n" +
			"E1201 10:00:00.000100 200 real_client.cpp:2297] Failed to register memory\n" +
			"E1201 10:00:00.000200 100 dummy_client.cpp:420] RealClient failed to map shared memory, error code: -1\n" +
			"E1201 10:00:00.000300 100 dummy_client.cpp:491] Failed to register SHM via IPC\n"},
		{"vllm-connector-side-bug", "(EngineCore_DP0 pid=4242) ERROR 12-01 10:00:00 [core.py:700] Traceback (most recent call last):\n" +
			"(EngineCore_DP0 pid=4242) ERROR 12-01 10:00:00 [core.py:700]   File \"/usr/local/lib/python3.12/dist-packages/vllm/distributed/kv_transfer/kv_connector/v1/mooncake_connector.py\", line 201, in get_finished\n" +
			"(EngineCore_DP0 pid=4242) ERROR 12-01 10:00:00 [core.py:700]     return self.connector_worker.get_finished()\n" +
			"(EngineCore_DP0 pid=4242) ERROR 12-01 10:00:00 [core.py:700]   File \"/usr/local/lib/python3.12/dist-packages/vllm/distributed/kv_transfer/kv_connector/v1/mooncake_connector.py\", line 610, in get_finished\n" +
			"(EngineCore_DP0 pid=4242) ERROR 12-01 10:00:00 [core.py:700]     del self.reqs_need_send.reqs[req_id]\n" +
			"(EngineCore_DP0 pid=4242) ERROR 12-01 10:00:00 [core.py:700] KeyError: 'cmpl-7f3a-0'\n"},
	} {
		i := slices.IndexFunc(cls, func(c explain.Class) bool { return c.Name == tc.class })
		if i < 0 {
			t.Fatalf("no class %s", tc.class)
		}
		d, err := explain.Diagnose(cat, fp, tc.log, versions[tc.class])
		if err != nil {
			t.Fatal(err)
		}
		named := slices.IndexFunc(d.Causes, func(c explain.Cause) bool { return cls[i].Explains(c.Name) })
		if d.Verdict != "cause" || named < 0 || (named > 0 && !causeOnly[tc.class]) {
			t.Errorf("%s: verdict %s, ambiguous %q, causes %v, nearest %v", tc.class, d.Verdict, d.Ambiguous, d.Causes, d.Nearest)
		}
	}
}

// TestClassExamplesNameTheirClass: each class's own examples (synthetic
// logs from the format strings its patterns cite, kept beside them in
// the class tables) name the class, or a scenario it links, first.
func TestClassExamplesNameTheirClass(t *testing.T) {
	cat, fp := allFingerprints(t)
	cls := allClasses(t)
	n := 0
	for _, c := range cls {
		for j, log := range c.Examples {
			n++
			d, err := explain.Diagnose(cat, fp, log, "")
			if err != nil {
				t.Fatal(err)
			}
			if top, ok := d.Top(); d.Verdict != "cause" || !ok || !c.Explains(top.Name) {
				t.Errorf("%s example %d: verdict %s, ambiguous %q, causes %v, nearest %v", c.Name, j+1, d.Verdict, d.Ambiguous, d.Causes, d.Nearest)
			}
		}
	}
	if n == 0 {
		t.Fatal("no class has examples: the source sweep's tables were not read")
	}
	t.Logf("%d examples", n)
}
