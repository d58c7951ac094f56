package explain_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/explain"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/fieldlogs"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// draft drafts log and, when written, loads the YAML and runs it again
// on sim: what new writes, run must pass.
func draft(t *testing.T, log string) (explain.Draft, *scenarios.Scenario) {
	t.Helper()
	cat, fp := allFingerprints(t)
	dr := explain.DraftFromLog(context.Background(), cat, fp, sim.New(), log, explain.DraftOptions{Name: "field/t"})
	if !dr.Written() {
		return dr, nil
	}
	sc, err := scenarios.Parse("t.yaml", dr.YAML)
	if err != nil {
		t.Fatalf("%v\n%s", err, dr.YAML)
	}
	for _, r := range scenarios.Run(context.Background(), sc, sim.New(), scenarios.Options{Seed: 1}) {
		if r.Verdict != scenarios.Pass {
			t.Fatalf("rerun: %s %s\n%s", r.Verdict, r.Reason, dr.YAML)
		}
	}
	if !strings.HasPrefix(string(dr.YAML), explain.SchemaModeline+"\n") {
		t.Fatalf("no modeline:\n%s", dr.YAML)
	}
	return dr, sc
}

// draftCase drafts from the field corpus's case id, which must be written.
func draftCase(t *testing.T, id string) (explain.Draft, *scenarios.Scenario) {
	t.Helper()
	cs, err := fieldlogs.Load()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(cs, func(c fieldlogs.Case) bool { return c.ID == id })
	if i < 0 {
		t.Fatalf("no corpus case %s", id)
	}
	dr, sc := draft(t, cs[i].Log)
	if sc == nil {
		t.Fatalf("%s: not written: %q", id, dr.Missing)
	}
	return dr, sc
}

// A corpus case the model reproduces: the max_mr_size shrink warning of
// Mooncake 640, found at a version that shrinks (< 0.3.5).
func TestDraftCorpusCaseReproduces(t *testing.T) {
	dr, sc := draftCase(t, "mooncake-640-segment-over-max-mr-size")
	if dr.Based != "register/segment-vs-max-mr-size" || dr.Version != "0.3.4.post2" || sc.Expect.OK != nil ||
		!slices.Equal(sc.Expect.Logs, []string{"The buffer length exceeds device max_mr_size, shrink it to"}) {
		t.Fatalf("%s @%s %+v\n%s", dr.Based, dr.Version, sc.Expect, dr.YAML)
	}
}

// A log with an error nothing in the catalog ends in (no world raises
// LookupError; SGLang's config worlds raise ValueError): nothing written,
// and the reason names explain's answer.
func TestDraftNoCandidate(t *testing.T) {
	dr, sc := draft(t, "LookupError: something odd happened\n")
	if sc != nil || len(dr.Missing) == 0 || !strings.HasPrefix(dr.Missing[0], "no catalog scenario explains this log") {
		t.Fatalf("%q %s", dr.Missing, dr.YAML)
	}
	// A field class is named, still nothing written: no world to start from.
	dr, sc = draft(t, "  File \"/sgl/python/sglang/srt/managers/cache_controller.py\", line 253, in __init__\nNameError: name 'MooncakeStore' is not defined\n")
	if sc != nil || len(dr.Missing) < 2 || !strings.Contains(dr.Missing[1], "field class sglang-side-bug") {
		t.Fatalf("%q", dr.Missing)
	}
}

// A field class linked to a catalog scenario: new starts from the
// scenario, and its run ends in the log's lines.
func TestDraftFromLinkedClass(t *testing.T) {
	dr, sc := draft(t, "E0302 09:15:07.980530 7 rdma_context.cpp:581] No suitable GID found on mlx5_bond_1/1\n")
	if sc == nil || dr.Based != "setup/roce-no-suitable-gid" || sc.Expect.Raises == nil ||
		!slices.Contains(sc.Expect.Logs, "No suitable GID found on") {
		t.Fatalf("%s @%s %q\n%s", dr.Based, dr.Version, dr.Missing, dr.YAML)
	}
}

// The log quotes a Mooncake line no model prints: not reproduced,
// nothing written, and Missing says which release's model lacks the line
// and which file prints it.
func TestDraftQuotedLineNotReproduced(t *testing.T) {
	log := "E1130 12:00:00.000001 77 tcp_transport.cpp:136] Session::writeBody failed. Error: Bad address (value: 14), total_transferred_bytes_: 0\n" +
		"RuntimeError: Failed to setup Mooncake store, error code: -1\n"
	dr, sc := draft(t, log)
	want := `does not print: Session::writeBody failed. Error: Bad address (value (tcp_transport.cpp: "Session::writeBody failed. Error: Bad address (value: 14), total_transferred_bytes_: 0")`
	if sc != nil || !slices.Contains(dr.Missing, "the log quotes: Session::writeBody failed. Error: Bad address (value") ||
		!slices.ContainsFunc(dr.Missing, func(m string) bool {
			return strings.HasPrefix(m, "the model of Mooncake "+dr.Version+" ") && strings.HasSuffix(m, want)
		}) {
		t.Fatalf("%s @%s %q\n%s", dr.Based, dr.Version, dr.Missing, dr.YAML)
	}
}

// The constructed cases of issue 15: what the log states about the world
// survives into the draft (the earlier new replaced the env with its own
// and lost them).
func TestDraftKeepsStatedSettings(t *testing.T) {
	for _, tc := range []struct {
		name, log string
		based     string
		env       map[string]string
	}{
		{
			name: "standalone storage kept",
			log: "export MOONCAKE_STANDALONE_STORAGE=true\nexport MOONCAKE_CLIENT=10.0.0.5:50052\nexport MOONCAKE_GLOBAL_SEGMENT_SIZE=1gb\n" +
				"E1201 10:00:00.000001 42 dummy_client.cpp:100] Failed to connect to real client\n" +
				"RuntimeError: Failed to setup Mooncake store, error code: -1\n",
			based: "standalone/no-client-listening",
			env:   map[string]string{"MOONCAKE_STANDALONE_STORAGE": "true", "MOONCAKE_GLOBAL_SEGMENT_SIZE": "1gb", "MOONCAKE_CLIENT": "{{client}}"},
		},
		{
			name: "rdma and device from the env",
			log: "MOONCAKE_PROTOCOL=rdma MOONCAKE_DEVICE=mlx5_3 python -m sglang.launch_server --enable-hierarchical-cache --hicache-storage-backend mooncake\n" +
				"E1201 10:00:00.000001 42 topology.cpp:1] No RDMA devices found, check your device installation\n" +
				"E1201 10:00:00.000002 42 rdma_transport.cpp:1] RdmaTransport: No available RNIC\n" +
				"RuntimeError: Failed to setup Mooncake store, error code: -1\n",
			based: "setup/rdma-named-devices-no-nic setup/rdma-force-hca-no-nic",
			env:   map[string]string{"MOONCAKE_PROTOCOL": "rdma", "MOONCAKE_DEVICE": "mlx5_3"},
		},
		{
			name: "rdma and device from Mooncake's lines",
			log: "I1201 10:00:00.000001 42 client.cpp:268] Transfer engine auto discovery is disabled for protocol: rdma\n" +
				"I1201 10:00:00.000002 42 client.cpp:280] Using specified RDMA devices: mlx5_1\n" +
				"E1201 10:00:00.000003 42 topology.cpp:1] No RDMA devices found, check your device installation\n" +
				"E1201 10:00:00.000004 42 rdma_transport.cpp:1] RdmaTransport: No available RNIC\n" +
				"RuntimeError: Failed to setup Mooncake store, error code: -1\n",
			based: "setup/rdma-named-devices-no-nic setup/rdma-force-hca-no-nic",
			env:   map[string]string{"MOONCAKE_PROTOCOL": "rdma", "MOONCAKE_DEVICE": "mlx5_1"},
		},
	} {
		dr, sc := draft(t, tc.log)
		if sc == nil {
			t.Errorf("%s: not written: %q", tc.name, dr.Missing)
			continue
		}
		if !strings.Contains(tc.based, dr.Based) || sc.Expect.Raises == nil || sc.Expect.OK != nil {
			t.Errorf("%s: based on %s, expect %+v", tc.name, dr.Based, sc.Expect)
		}
		for k, v := range tc.env {
			if got := sc.Config.Env[k]; got == nil || *got != v {
				t.Errorf("%s: %s = %v, want %q\n%s", tc.name, k, got, v, dr.YAML)
			}
		}
	}
}

// BenchmarkDiagnose is explain on one field log with the catalog's
// fingerprints computed (what `faultlab explain` does per log).
func BenchmarkDiagnose(b *testing.B) {
	cat, fp := allFingerprints(b)
	cs, err := fieldlogs.Load()
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := explain.Diagnose(cat, fp, cs[i%len(cs)].Log, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFingerprintAll is the one-off cost per explain invocation:
// the catalog at every version on sim.
func BenchmarkFingerprintAll(b *testing.B) {
	cat, err := scenarios.Catalog()
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		explain.Fingerprint(context.Background(), cat, sim.New(), "")
	}
}

// A log stating an IPv6 local hostname: the draft runs on the IPv6
// loopback, whatever the world it starts from says.
func TestDraftIPv6Hostname(t *testing.T) {
	log := "export MOONCAKE_LOCAL_HOSTNAME=[fd00::12]\n" +
		"I0101 00:00:00.000001 7 transfer_engine.cpp:1] Transfer Engine RPC using P2P handshake, listening on fd00::12:15875\n" +
		"E0101 00:00:00.000002 7 transfer_metadata_plugin.cpp:1] SocketHandShakePlugin: failed to get IP address of peer server fd00::12:15875, check DNS and /etc/hosts, or use IPv4 address instead: Success [0]\n"
	dr, sc := draft(t, log)
	if sc == nil || dr.Based != "setup/ipv6-local-hostname" {
		t.Fatalf("%s @%s %q\n%s", dr.Based, dr.Version, dr.Missing, dr.YAML)
	}
	if h := sc.Config.Env["MOONCAKE_LOCAL_HOSTNAME"]; h == nil || *h != "[::1]" {
		t.Fatalf("MOONCAKE_LOCAL_HOSTNAME %v\n%s", h, dr.YAML)
	}
}

// A log whose only error is its outcome - a process that died, with no
// exception and no error line - reproduces nothing a run can be checked
// against: a scenario that ends the same way would "reproduce" any cause
// of that death (field corpus batch 2: a glibc heap abort drafted as the
// etcd plugin's SIGABRT). Nothing is written, and the reason says why.
func TestDraftOutcomeAloneNotWritten(t *testing.T) {
	log := "corrupted size vs. prev_size\n" +
		"F0101 00:00:00.000001 7 transfer_metadata_plugin.cpp:1] Unable to find metadata storage plugin redis with conn string: redis://127.0.0.1:6379\n" +
		"Aborted (core dumped)\n"
	// With the plugin's line the run has a line to meet: written.
	if dr, sc := draft(t, log); sc == nil {
		t.Fatalf("with an error line: %q", dr.Missing)
	}
	dr, sc := draft(t, "corrupted size vs. prev_size\nAborted (core dumped)\n")
	if sc != nil {
		t.Fatalf("the abort alone was written:\n%s", dr.YAML)
	}
	if !slices.ContainsFunc(dr.Missing, func(m string) bool {
		return strings.Contains(m, "quotes no exception or error line to check a run against")
	}) {
		t.Fatalf("reason: %q", dr.Missing)
	}
}

// A death line is the draft's expect.dies when the world dies so, with
// the Mooncake line that checks it; a world that does not die so is
// refused, the death named.
func TestDraftDeathLine(t *testing.T) {
	plugin := "E0101 00:00:00.000001 7 transfer_metadata_plugin.cpp:579] Unable to find metadata storage plugin etcd with conn string: etcd://10.72.12.100:2379\n"
	dr, sc := draft(t, plugin+"*** Check failure stack trace: ***\n")
	if sc == nil || dr.Based != "setup/metadata-plugin-missing" || sc.Expect.Dies == nil || sc.Expect.Dies.Signal != "SIGABRT" ||
		sc.Expect.Raises != nil || !slices.Equal(sc.Expect.Logs, []string{"Unable to find metadata storage plugin"}) {
		t.Fatalf("%s @%s %q\n%s", dr.Based, dr.Version, dr.Missing, dr.YAML)
	}
	dr, sc = draft(t, plugin+"Fatal Python error: Segmentation fault\n")
	if sc != nil || !slices.ContainsFunc(dr.Missing, func(m string) bool {
		return strings.HasPrefix(m, "the log's process died of SIGSEGV (Fatal Python error: Segmentation fault); setup/metadata-plugin-missing dies of SIGABRT")
	}) {
		t.Fatalf("%q\n%s", dr.Missing, dr.YAML)
	}
}

// mooncake_master's own log of its abort at start: the master died, not
// the caller, so the world whose master aborts so stands for it, ending as
// it does (the caller's setup fails).
func TestDraftMasterFatal(t *testing.T) {
	dr, sc := draft(t, "E1205 10:00:00.000000 100 http_metadata_server.cpp:120] Failed to start HTTP metadata server on 0.0.0.0:8080\n"+
		"E1205 10:00:00.000100 100 master.cpp:1240] Failed to start C++ HTTP metadata server\n"+
		"F1205 10:00:00.000200 100 master.cpp:1450] Failed to start HTTP metadata server\n"+
		"*** Check failure stack trace: ***\n")
	if sc == nil || dr.Based != "setup/http-metadata-port-in-use" || sc.Expect.Dies != nil || sc.Expect.Raises == nil ||
		!slices.Contains(sc.Expect.Logs, "Failed to start C++ HTTP metadata server") {
		t.Fatalf("%s @%s %q\n%s", dr.Based, dr.Version, dr.Missing, dr.YAML)
	}
}

// The wheel's HTTP metadata server's own traceback at start (0.3.14, a
// host that is not the loopback, no token): the server exited, not the
// caller, so the world whose server refuses so stands for it, ending as
// it does (setup -1), and the refusal is a line its run prints, whatever
// address the log's server had.
func TestDraftMetadataServerRefusal(t *testing.T) {
	dr, sc := draft(t, "Traceback (most recent call last):\n"+
		"  File \"/usr/lib/python3.12/site-packages/mooncake/http_metadata_server.py\", line 112, in run\n"+
		"    raise RuntimeError(\n"+
		"RuntimeError: HTTP Metadata Server refuses to bind 10.1.2.3:18080 without an authentication token: anyone who can reach this port could read and rewrite cluster metadata.\n")
	if sc == nil || dr.Based != "setup/http-metadata-token-required" || dr.Version != "0.3.14" || sc.Expect.Raises == nil ||
		sc.Expect.Raises.Message == nil || *sc.Expect.Raises.Message != "Failed to setup Mooncake store, error code: -1" ||
		!slices.Equal(sc.Expect.Logs, []string{"RuntimeError: HTTP Metadata Server refuses to bind"}) {
		t.Fatalf("%s @%s %q\n%s", dr.Based, dr.Version, dr.Missing, dr.YAML)
	}
}

// A log that shows only its process dying, with Python's faulthandler
// dump: the frame names the kind of Mooncake call, and the draft's world
// must die in one (a SIGSEGV alone would stand for any cause); a world
// that dies in another kind of call is no draft.
func TestDraftDeathInCall(t *testing.T) {
	const hicache = `"/usr/lib/python3/dist-packages/sglang/srt/mem_cache/storage/mooncake_store/mooncake_store.py"`
	dr, sc := draft(t, "Fatal Python error: Segmentation fault\n\nCurrent thread 0x00007f4d75ffd640 (most recent call first):\n"+
		"  File "+hicache+", line 412 in _put_batch_zero_copy_impl\n  File "+hicache+", line 380 in batch_set_v1\n")
	if sc == nil || sc.Expect.Dies == nil || sc.Expect.Dies.Signal != "SIGSEGV" || sc.Expect.Dies.In != scenarios.CallPut || len(sc.Expect.Logs) != 0 ||
		!strings.Contains(string(dr.YAML), "any cause that dies so fits the log as well as this one") {
		t.Fatalf("%s @%s %q\n%s", dr.Based, dr.Version, dr.Missing, dr.YAML)
	}
	// mooncake-pr702: a PD transfer. The worlds that die with SIGSEGV in
	// a store's put or get may be its cause (the same transfer engine,
	// another caller), but their call checks no run of it: no draft.
	dr, sc = draft(t, "Fatal Python error: Segmentation fault\n\nThread 0x00007f4d75ffd640 (most recent call first):\n"+
		"  File \"/opt/sglang/srt/disaggregation/mooncake/transfer_engine.py\", line 102 in batch_transfer_sync\n")
	if sc != nil || !slices.ContainsFunc(dr.Missing, func(m string) bool { return strings.Contains(m, "outcome alone (SIGSEGV) does not tell causes apart") }) {
		t.Fatalf("want no draft; %s @%s %q\n%s", dr.Based, dr.Version, dr.Missing, dr.YAML)
	}
}

// SGLang PD's request failure beside the prefill's Mooncake line (the
// decode's line as a router returns it, sglang#7338): the KV manager's
// reason is a line the run must print too, and a te world whose transfer
// is the KV manager's (pd: true) prints it.
func TestDraftPDReason(t *testing.T) {
	dr, sc := draft(t, "E0701 10:00:00.000000 100 tcp_transport.cpp:145] Session::writeBody failed. Error: Bad address (value: 14), total_transferred_bytes_: 0, current transferred_bytes: 0\n"+
		`{"text":"","meta_info":{"finish_reason":{"type":"abort","message":"Decode transfer failed for request rank=0 decode_req.req.rid='c564d0c547f945aa987620f1255b838d' decode_req.req.bootstrap_room=2170015846053279415 with exception KVTransferError(bootstrap_room=2170015846053279415): Failed to get kvcache from prefill instance, it might be dead","status_code":500}}}`+"\n")
	if sc == nil || dr.Based != "io/te-tcp-gpu-memory" || !slices.Contains(sc.Expect.Logs, "Failed to get kvcache from prefill instance, it might be dead") || len(sc.Expect.Logs) != 2 {
		t.Fatalf("%s @%s %q\n%s", dr.Based, dr.Version, dr.Missing, dr.YAML)
	}
}

// A master that exits on its held metrics port (radixark/miles#2389,
// real 0.3.14): the world holds the port the log names, not its own.
func TestDraftMasterHeldPort(t *testing.T) {
	for _, c := range []struct{ log, based string }{
		{"I1206 19:59:58.263154 27233 master.cpp:1585] Master service started on port 50051, max_threads=2, enable_metric_reporting=1, metrics_port=50052\n" +
			"E1206 19:59:58.264341 27233 master_admin_service.cpp:283] Failed to start master admin server on 0.0.0.0:50052: Address already in use\n" +
			"E1206 19:59:58.264365 27233 master.cpp:1741] Failed to start master admin server\n", "setup/master-metrics-port-in-use"},
		{"E1205 10:00:00.000000 100 http_metadata_server.cpp:120] Failed to start HTTP metadata server on 0.0.0.0:50052\n" +
			"E1205 10:00:00.000100 100 master.cpp:1240] Failed to start C++ HTTP metadata server\n" +
			"F1205 10:00:00.000200 100 master.cpp:1450] Failed to start HTTP metadata server\n", "setup/http-metadata-port-in-use"},
	} {
		dr, sc := draft(t, c.log)
		if sc == nil || dr.Based != c.based {
			t.Fatalf("%s @%s %q\n%s", dr.Based, dr.Version, dr.Missing, dr.YAML)
		}
		m := sc.Topology.Master
		if port := max(m.MetricsPort, m.HTTPMetadataPort); port != 50052 || len(sc.Faults) != 1 || sc.Faults[0].Params.(faults.PortHeldParams).Port != 50052 {
			t.Errorf("%s: master %+v, faults %+v; want port 50052 held\n%s", c.based, m, sc.Faults, dr.YAML)
		}
	}
}

// A vLLM log of the pybind TypeError (field corpus mooncake-476): its
// lines are vLLM's and the exception's body, so the draft expects the
// exception they quote, not them.
func TestDraftCallerQuotedException(t *testing.T) {
	log := "ERROR 06-12 13:12:27 [mooncake_store.py:97] An error occurred while loading the configuration: setup(): incompatible function arguments. The following argument types are supported:\n" +
		"ERROR 06-12 13:12:27 [mooncake_store.py:97]     1. (self: mooncake.store.MooncakeDistributedStore, arg0: str, arg1: str, arg2: int, arg3: int, arg4: str, arg5: str, arg6: str) -> int\n" +
		"ERROR 06-12 13:12:27 [mooncake_store.py:97] Invoked with: <mooncake.store.MooncakeDistributedStore object at 0x7af2a2487430>, None, '192.168.1.10:2379', 3355443200, 1073741824, 'rdma', 'erdma_0', None\n"
	dr, sc := draft(t, log)
	if sc == nil || dr.Based != "setup/missing-config-none" || sc.Expect.Raises == nil || sc.Expect.Raises.Class != "TypeError" ||
		sc.Expect.Raises.Message != nil || !slices.Equal(sc.Expect.Logs, []string{"setup(): incompatible function arguments"}) {
		t.Fatalf("%s @%s %q\n%s", dr.Based, dr.Version, dr.Missing, dr.YAML)
	}
	// LMCache calling a method the installed binding lacks: the
	// AttributeError, exactly, from the world of a caller calling it; the
	// draft calls the method the log names.
	for _, m := range []string{"batch_get_buffer", "setup_lmcache"} {
		dr, sc = draft(t, "[2025-09-04 01:00:51,159] LMCache ERROR: "+m+" failed: 'mooncake.store.MooncakeDistributedStore' object has no attribute '"+m+"' (mooncakestore_connector.py:360)\n")
		if sc == nil || dr.Based != "version/client-api-missing" || sc.Expect.Raises == nil || sc.Expect.Raises.Class != "AttributeError" ||
			sc.Expect.Raises.Message == nil || *sc.Expect.Raises.Message != "'mooncake.store.MooncakeDistributedStore' object has no attribute '"+m+"'" ||
			len(sc.Steps) != 1 || sc.Steps[0].Action != scenarios.StepCall || sc.Steps[0].Method != m {
			t.Fatalf("%s: %s @%s %q\n%s", m, dr.Based, dr.Version, dr.Missing, dr.YAML)
		}
	}
}

// A RoCE log of the auto-discovery path (field corpus mooncake-1593, no
// version stated): the draft names no device, runs at a release whose
// model prints the install line, and expects the Mooncake lines only.
func TestDraftAutoDiscoveryCorpusCase(t *testing.T) {
	dr, sc := draftCase(t, "mooncake-1593-no-suitable-gid")
	if _, named := sc.Config.Env["MOONCAKE_DEVICE"]; named || dr.Based != "setup/roce-no-suitable-gid-auto-discovery" || dr.Version != "0.3.12.post1" ||
		sc.Config.Env["MOONCAKE_PROTOCOL"] == nil || *sc.Config.Env["MOONCAKE_PROTOCOL"] != "rdma" ||
		!slices.Contains(sc.Expect.Logs, "Failed to install RDMA transport, type") {
		t.Fatalf("%s @%s\n%s", dr.Based, dr.Version, dr.YAML)
	}
}

// BenchmarkDraftFromLog is new --from-log on one field log with the
// catalog's fingerprints computed: explain, then the draft's sim runs (up
// to MaxDraftTries scenarios at MaxDraftVersions versions each).
func BenchmarkDraftFromLog(b *testing.B) {
	cat, fp := allFingerprints(b)
	cs, err := fieldlogs.Load()
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		explain.DraftFromLog(context.Background(), cat, fp, sim.New(), cs[i%len(cs)].Log, explain.DraftOptions{Name: "field/b"})
	}
}

// A log whose caller is not SGLang's store (LMCache on Mooncake's own
// Python API, 0.3.4, master not running): the draft's world runs the
// caller as an integration's own store on the node, and SGLang's
// exception is no part of its expectation. The same lines under SGLang's
// own (its storage backend line) keep SGLang as the caller. The Mooncake
// lines are written as 0.3.4's store_py.cpp and master_client.cpp print
// them (LOG(ERROR) at v0.3.4).
func TestDraftIntegrationCaller(t *testing.T) {
	log := strings.Join([]string{
		"Name: mooncake-transfer-engine",
		"Version: 0.3.4",
		"[2025-06-01 10:00:00,123] LMCache INFO: Creating the Mooncake store connector",
		"E0601 10:00:00.000001  4121 master_client.cpp:123] Failed to connect to master: not connected",
		"E0601 10:00:00.000002  4121 store_py.cpp:245] Failed to create client",
	}, "\n")
	dr, sc := draft(t, log)
	if sc == nil {
		t.Fatalf("not written: %v", dr.Missing)
	}
	var actions []string
	for _, st := range sc.Steps {
		actions = append(actions, st.Action)
	}
	if dr.Version != "0.3.4" || !slices.Equal(actions, []string{scenarios.StepPut}) || sc.Expect.Raises != nil {
		t.Errorf("drafted from %s @%s, steps %v, raises %v:\n%s", dr.Based, dr.Version, actions, sc.Expect.Raises, dr.YAML)
	}
	if !strings.Contains(string(dr.YAML), "its init steps are an integration's own store") {
		t.Errorf("the draft does not say its caller changed:\n%s", dr.YAML)
	}
	dr, sc = draft(t, "[2025-06-01 10:00:00] Creating storage backend 'mooncake' (sglang.srt.mem_cache.storage.mooncake_store.mooncake_store.MooncakeStore)\n"+strings.Replace(log, "LMCache", "x", 1))
	if sc != nil && slices.ContainsFunc(sc.Steps, func(s scenarios.Step) bool { return s.Action == scenarios.StepPut }) {
		t.Errorf("SGLang's log drafted as an integration's:\n%s", dr.YAML)
	}
}

// A backtrace with no line of Mooncake's (a gdb session on a core) is
// checked by where it died: the draft's run must die in the function its
// innermost Mooncake frame names (sim and fake: the real engine reports no
// frame); a world that dies elsewhere is no reproduction.
func TestDraftBacktraceFrame(t *testing.T) {
	bt := func(frame string) string {
		return "#0  __memcpy_avx512_unaligned_erms ()\n    at ../sysdeps/x86_64/multiarch/memmove-vec-unaligned-erms.S:265\n" +
			"#1  " + frame + " ()\n    from .../site-packages/mooncake/store.so\n#2  std::execute_native_thread_routine\n#3  start_thread\n"
	}
	dr, sc := draft(t, bt("mooncake::MemcpyWorkerPool::workerThread"))
	if sc == nil || dr.Based != "io/local-memcpy-cross-process" || dr.Version != "0.3.10.post2" || sc.Expect.Dies == nil ||
		sc.Expect.Dies.Signal != "SIGSEGV" || sc.Expect.Dies.Reason == nil || *sc.Expect.Dies.Reason != "MemcpyWorkerPool::workerThread" ||
		!slices.Equal(sc.Engines, []string{"sim", "fake"}) {
		t.Fatalf("%s @%s %q\n%s", dr.Based, dr.Version, dr.Missing, dr.YAML)
	}
	if dr, sc := draft(t, bt("mooncake::TransferMetadata::updateSegmentDesc")); sc != nil {
		t.Fatalf("a death elsewhere was written:\n%s", dr.YAML)
	}
}

// A log whose ibv_reg_mr failed with another errno than the world's own
// cause gives: the draft keeps the world and makes the registrations it
// fails report the log's errno (rdma-context reg_mr, scope failing), and
// leaves out the world's remedy, which fixes only its own cause.
func TestDraftRegMRErrno(t *testing.T) {
	dr, sc := draftCase(t, "sglang-6894-register-invalid-argument")
	want := faults.RDMAContextParams{Errno: "EINVAL", Scope: faults.RegMRFailing}
	if dr.Based != "register/te-gpu-peermem-missing" || len(sc.Faults) != 1 || sc.Faults[0].Mode != faults.ModeRegMR ||
		sc.Faults[0].Target != "prefill" || sc.Faults[0].Params != want || sc.Remedy != nil ||
		!slices.Contains(sc.Expect.Logs, "Invalid argument [22]") {
		t.Fatalf("%s @%s %q\n%s", dr.Based, dr.Version, dr.Missing, dr.YAML)
	}
	log := "E1201 10:00:01.000000 100 rdma_context.cpp:262] Failed to register memory 0x7f2a40000000: Operation not permitted [1]\n" +
		"E1201 10:00:01.000100 100 rdma_transport.cpp:201] Failed to register memory region with context 0\n" +
		"RuntimeError: Failed to register buffer to Mooncake Store, error code: -600\n"
	dr, sc = draft(t, log)
	if sc == nil || len(sc.Faults) == 0 || sc.Faults[0].Params != (faults.RDMAContextParams{Errno: "EPERM", Scope: faults.RegMRFailing}) ||
		!slices.Contains(sc.Expect.Logs, "Operation not permitted [1]") {
		t.Fatalf("%s @%s %q\n%s", dr.Based, dr.Version, dr.Missing, dr.YAML)
	}
}

// A log cut before its failure that shows Mooncake's warnings (Mooncake#1627:
// a hang the operator stopped) is drafted from a world that fails: the run
// prints the warnings and the lines the world expects that the log shows,
// then fails as the world does - never ends ok. A log of one INFO line
// and nothing else is still refused.
func TestDraftWarningsBeforeTheFailure(t *testing.T) {
	log := "W topology.cpp:152] No RDMA devices found, check your device installation\n" +
		"I transfer_engine_impl.cpp:232] Topology discovery complete. Found 0 HCAs.\n" +
		"I transfer_engine_impl.cpp:253] Using cross-node NVLink transport (MC_FORCE_MNNVL or no HCA detected)\n"
	dr, sc := draft(t, log)
	if sc == nil {
		t.Fatalf("not written: %q", dr.Missing)
	}
	if dr.Based != "io/te-mnnvl-buffer-not-fabric" || !explain.ExpectsFailure(sc.Expect) ||
		!slices.Equal(sc.Expect.Logs, []string{"No RDMA devices found, check your device installation", "Topology discovery complete. Found 0 HCAs.", "Using cross-node NVLink transport (MC_FORCE_MNNVL or no HCA detected)"}) ||
		!slices.Equal(sc.Expect.Codes["transfer_sync_write"].Seq, []int{-1}) {
		t.Fatalf("based on %s, expect %+v", dr.Based, sc.Expect)
	}
	if !strings.Contains(string(dr.YAML), "the log shows no failure, only what led to it") {
		t.Fatalf("no word of the missing failure:\n%s", dr.YAML)
	}
	if dr, sc := draft(t, "I transfer_engine_impl.cpp:232] Topology discovery complete. Found 0 HCAs.\n"); sc != nil {
		t.Fatalf("an INFO line alone was written:\n%s", dr.YAML)
	}
}

// A failed slice's line with max_retry_cnt is v0.3.12's format (worker_pool.cpp
// v0.3.12:606; 0.3.13.post1 and 0.3.14 alike): the draft runs at such a
// release, with the log's status, and the run prints the line with it. The
// older format is drafted at an older release.
func TestDraftSliceLineFormatNamesTheRelease(t *testing.T) {
	line := "E1201 10:00:02.000000 120 worker_pool.cpp:606] Worker: Process failed for slice (opcode: 1, source_addr: 0x7f0000000000, length: 65536, dest_addr: 0x7e0000000000, local_nic: mlx5_0, peer_nic: 10.0.0.2:15001@mlx5_0, dest_rkey: 2097152, retry_cnt: 0%s): transport retry counter exceeded\n"
	for _, tc := range []struct{ max, release string }{{", max_retry_cnt: 9", "0.3.12.post1"}, {"", "0.3.11.post1"}} {
		dr, sc := draft(t, fmt.Sprintf(line, tc.max))
		if sc == nil {
			t.Fatalf("%q: not written: %q", tc.max, dr.Missing)
		}
		if dr.Version != tc.release || len(sc.Faults) != 1 || sc.Faults[0].Mode != "retry_exceeded" ||
			!slices.Contains(sc.Expect.Logs, "): transport retry counter exceeded") {
			t.Fatalf("%q: %s @%s\n%s", tc.max, dr.Based, dr.Version, dr.YAML)
		}
	}
}
