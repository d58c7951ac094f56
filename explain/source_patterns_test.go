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
	cls, err := explain.Classes()
	if err != nil {
		t.Fatal(err)
	}
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
