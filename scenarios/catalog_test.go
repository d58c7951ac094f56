package scenarios

import (
	"slices"
	"testing"
)

func TestCatalogLoads(t *testing.T) {
	scs, err := Catalog()
	if err != nil {
		t.Fatalf("catalog: %v", err)
	}
	if len(scs) < 20 {
		t.Fatalf("catalog has %d scenarios, want >= 20", len(scs))
	}
	for _, sc := range scs {
		vs, ok := sc.Versions("")
		if !ok || len(vs) == 0 {
			t.Errorf("%s: no versions", sc.Name)
		}
		t.Logf("%-50s %v %v", sc.Name, vs, sc.Labels)
	}
}

// The catalog scenarios without an SGLang side: the SGLang agreement
// leaves them to the real catalog.
func TestStartsSGLang(t *testing.T) {
	scs, err := Catalog()
	if err != nil {
		t.Fatalf("catalog: %v", err)
	}
	var none []string
	for _, sc := range scs {
		if !sc.StartsSGLang() {
			none = append(none, sc.Name)
		}
	}
	want := []string{"etcd/duplicate-local-hostname-read", "etcd/ha-client-direct-master", "etcd/ha-leader-stopped-integration", "etcd/keepalive-too-many-pings", "io/ascend-store-put-transfer-failed", "io/duplicate-key-put", "io/eviction-starved-leases", "io/get-while-master-down", "io/local-buffer-exhausted-slices", "io/local-buffer-exhausted", "io/local-memcpy-cross-process", "io/local-memcpy-invalid-value", "io/missing-key-logged-as-error", "io/no-segment-space-put", "io/peer-unreachable-transient", "io/rdma-multi-nic-unroutable-pair-pd", "io/rdma-work-completion-error-pd", "io/ssd-offload-bucket-evicted", "io/ssd-offload-carryover-duplicate-bucket", "io/ssd-offload-idle-heartbeat-error", "io/ssd-offload-key-removed-before-offload", "io/ssd-offload-orphaned-task-expired", "io/ssd-offload-owner-gone", "io/ssd-offload-readback-files-removed", "io/ssd-offload-readback-invalid-key", "io/ssd-offload-readback-slice-too-large", "io/ssd-offload-session-get-disk-replica", "io/te-ascend-async-transfer-status-failed", "io/te-ascend-connect-self-device", "io/te-ascend-peer-link-down", "io/te-ascend-transfer-status-failed", "io/te-handshake-stray-connection", "io/te-mnnvl-buffer-not-fabric", "io/te-mnnvl-import-not-permitted", "io/te-peer-buffer-unregistered", "io/te-peer-segment-not-published", "io/te-register-metadata-race", "io/te-sync-transfer-timeout", "io/te-tcp-gpu-memory", "io/zero-copy-buffer-not-registered-tcp", "io/zero-copy-buffer-not-registered", "register/te-gpu-peermem-missing", "register/te-nvlink-fabric-mem-unsupported", "setup/bench-http-metadata-wrong-path", "setup/cuda-runtime-missing-import", "setup/handshake-port-reuseaddr-rdma", "setup/handshake-port-reuseaddr", "setup/hugepage-arena-without-pool", "setup/hugepage-env-without-pool", "setup/local-hostname-bad-port", "setup/native-lib-missing-import", "setup/rdma-create-cq-failure", "setup/tcp-port-collision", "setup/te-ascend-adxl-init-failed", "setup/te-engine-env-values-ignored", "setup/te-env-values-ignored", "setup/te-force-tcp-without-tcp-build", "setup/te-ipv6-bare-hostname", "setup/te-no-hca-without-tcp-build", "setup/te-nvlink-protocol-without-mnnvl", "setup/te-nvlink-transport-not-built", "setup/wheel-libstdcxx-too-old-import", "standalone/buffer-outside-shm", "standalone/ssd-offload-heartbeat-client-expired", "standalone/ssd-offload-master-restart", "version/client-api-missing", "version/master-skew-put-end"}
	if !slices.Equal(none, want) {
		t.Fatalf("scenarios without SGLang: %q, want %q", none, want)
	}
}
