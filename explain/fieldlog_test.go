package explain_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/explain"
)

func TestParseLogLines(t *testing.T) {
	for _, tc := range []struct {
		in, level, source, text string
	}{
		{"E0302 09:15:07.980787     7 rdma_context.cpp:81] Failed to open device mlx5_bond_1", "E", "rdma_context.cpp:81", "Failed to open device mlx5_bond_1"},
		{"I20251222 18:59:04.417019 281473495854048 client_metric.cpp:76] Client metrics enabled", "I", "client_metric.cpp:76", "Client metrics enabled"},
		{"E20260821 12:30:19.448818 rdma_transport.cpp:827] RdmaTransport: No available RNIC", "E", "rdma_transport.cpp:827", "RdmaTransport: No available RNIC"},
		{"E1130 transfer_metadata.cpp:123] Failed to set location of x", "E", "transfer_metadata.cpp:123", "Failed to set location of x"},
		// Trimmed to its severity letter and file (Mooncake#1627).
		{"W topology.cpp:152] No RDMA devices found, check your device installation", "W", "topology.cpp:152", "No RDMA devices found, check your device installation"},
		// Cut to its file without the bracket, two spaces before the
		// message (Mooncake#3393).
		{"transfer_task.cpp:265  Fileread task failed for file: /data/x  FILE_OPEN_FAIL", "", "transfer_task.cpp:265", "Fileread task failed for file: /data/x  FILE_OPEN_FAIL"},
		// Python logging's default format says its level.
		{"INFO:sglang.srt.mem_cache.storage.mooncake_store.mooncake_store:Mooncake Configuration loaded", "I", "", "INFO:sglang.srt.mem_cache.storage.mooncake_store.mooncake_store:Mooncake Configuration loaded"},
		{"> E0414 03:56:41.856248 77969 transfer_metadata_plugin.cpp:173] Unexpected code", "E", "transfer_metadata_plugin.cpp:173", "Unexpected code"},
		{"[2026-01-16 07:02:59 TP4] Mooncake store setup successfully.", "", "", "Mooncake store setup successfully."},
		{"(Worker_TP1 pid=113078) ERROR 11-10 20:25:57 [mooncake_connector.py:329] Failed to transfer", "E", "mooncake_connector.py:329", "Failed to transfer"},
		{"2025-06-06 09:39:00.285457 ERROR    [382] [coro_rpc_client.hpp:923] client has been closed", "E", "coro_rpc_client.hpp:923", "client has been closed"},
		{"RuntimeError: Failed to setup Mooncake store, error code: -1", "", "", "RuntimeError: Failed to setup Mooncake store, error code: -1"},
		// Wrapped by the operator's tooling (explain/wrapped_test.go runs the corpus so).
		{"mooncake-master-1  | E1130 transfer_metadata.cpp:123] Failed to set location of x", "E", "transfer_metadata.cpp:123", "Failed to set location of x"},
		{"2025-06-06T09:39:00.285457123Z E0302 09:15:07.980787     7 rdma_context.cpp:81] Failed to open device mlx5_1", "E", "rdma_context.cpp:81", "Failed to open device mlx5_1"},
		{"Dec 01 12:00:00 node-3 mooncake_master[4121]: W1201 12:00:00.000001 4121 master_service.cpp:9] x", "W", "master_service.cpp:9", "x"},
		{"(VllmWorker rank=0 pid=4121) E1201 12:00:00.000001 4121 client.cpp:9] y", "E", "client.cpp:9", "y"},
		{"\x1b[0;31m[rank0]: RuntimeError: Mooncake memory registration failed.\x1b[0m", "", "", "RuntimeError: Mooncake memory registration failed."},
		{"[pod/sglang-0/sglang] `E1201 client.cpp:9] z`", "E", "client.cpp:9", "z"},
		{`  File "/sgl/python/sglang/srt/managers/scheduler.py", line 2297, in run`, "", "", `File "/sgl/python/sglang/srt/managers/scheduler.py", line 2297, in run`},
		// A message quoted whole in prose; a line with quotes of its own keeps them.
		{`"Unsupported transport nvlink, please rebuild Mooncake"`, "", "", "Unsupported transport nvlink, please rebuild Mooncake"},
		{`"key": "value",`, "", "", `"key": "value",`},
	} {
		ev := explain.ParseLog(tc.in)
		if len(ev.Lines) != 1 {
			t.Fatalf("%q: %d lines", tc.in, len(ev.Lines))
		}
		l := ev.Lines[0]
		if l.Level != tc.level || l.Source != tc.source || l.Text != tc.text || l.N != 1 {
			t.Errorf("%q: got %+v", tc.in, l)
		}
	}
}

func TestParseLogVersionsEnvGaps(t *testing.T) {
	for _, tc := range []struct {
		name, in, mooncake, sglang string
	}{
		{"pip show", "Name: mooncake-transfer-engine\nVersion: 0.3.7.post2\nSummary: x\n", "0.3.7.post2", ""},
		{"pip freeze", "sglang==0.5.21\nmooncake-transfer-engine==0.3.13.post1\n", "0.3.13.post1", "0.5.21"},
		{"pip list", "mooncake-transfer-engine                 0.3.0b5\nsglang                                   0.4.5.post2         /sgl-workspace/sglang/python\n", "0.3.0b5", "0.4.5.post2"},
		{"check_env", "sglang: 0.4.6.post2\nsgl_kernel: 0.1.1\n", "", "0.4.6.post2"},
		{"prose", "SGLang v0.5.10 with mooncake transfer-engine v0.3.11\n", "", "0.5.10"},
		{"prose version", "vLLM version: 0.8.4, Mooncake version: 0.3.5.\n", "0.3.5", ""},
		{"pip list, CUDA 13 wheel", "mooncake-transfer-engine-cuda13          0.3.11.post1\n", "0.3.11.post1", ""},
		{"pip freeze, non-CUDA wheel", "mooncake-transfer-engine-non-cuda==0.3.13.post1\n", "0.3.13.post1", ""},
		{"pip install", "Successfully installed mooncake-transfer-engine-0.3.6.post1 sglang-0.5.2\n", "0.3.6.post1", "0.5.2"},
		{"wheel", "Processing ./mooncake_transfer_engine-0.3.4.post2-cp310-cp310-manylinux_2_35_x86_64.whl\n", "0.3.4.post2", ""},
		{"already satisfied", "Requirement already satisfied: mooncake-transfer-engine in /usr/local/lib/python3.10/dist-packages (0.3.5)\n" +
			"Requirement already satisfied: sglang in /sgl-workspace/sglang/python (0.4.9.post2)\n", "0.3.5", "0.4.9.post2"},
		{"image tag", "docker run --gpus all lmsysorg/sglang:v0.4.6.post1-cu124 python3 -m sglang.launch_server\n", "", "0.4.6.post1"},
		{"pip finds no release", "ERROR: Could not find a version that satisfies the requirement mooncake-transfer-engine==0.3.7 (from versions: 0.3.0b3, 0.3.1)\n" +
			"ERROR: No matching distribution found for mooncake-transfer-engine==0.3.7\n", "", ""},
		{"pip fetches a wheel for another platform", "Collecting mooncake-transfer-engine\n" +
			"  Downloading mooncake_transfer_engine-0.3.0b3-cp310-cp310-manylinux_2_35_x86_64.whl (5 MB)\n" +
			"ERROR: mooncake_transfer_engine-0.3.0b3-cp310-cp310-manylinux_2_35_x86_64.whl is not a supported wheel on this platform.\n", "", ""},
		{"pip fetches, nothing refused", "Collecting mooncake-transfer-engine==0.3.5\n" +
			"  Downloading mooncake_transfer_engine-0.3.5-cp310-cp310-manylinux_2_35_x86_64.whl (5 MB)\n", "0.3.5", ""},
		{"no version", "sglang-workspace/python/sglang/srt/mem_cache/storage/mooncake_store/mooncake_store.py\n", "", ""},
	} {
		ev := explain.ParseLog(tc.in)
		if ev.MooncakeVersion != tc.mooncake || ev.SGLangVersion != tc.sglang {
			t.Errorf("%s: mooncake %q sglang %q", tc.name, ev.MooncakeVersion, ev.SGLangVersion)
		}
	}
	ev := explain.ParseLog("export MOONCAKE_PROTOCOL=rdma\nMOONCAKE_DEVICE=\"mlx5_0,mlx5_1\" \\\n" +
		"        - name: MOONCAKE_GLOBAL_SEGMENT_SIZE\n          value: \"0\"\n" +
		"MC_GID_INDEX=3 python -m sglang.launch_server --enable-hierarchical-cache --hicache-storage-backend mooncake\n" +
		"I0331 02:48:57.801054 803278 transport.cpp:1119] Connected to segment\n" +
		"I0331 02:49:30.617945 803444 transfer_engine_py.cpp:454] Sync batch data transfer timeout after 33061142969ns\n" +
		"E0331 02:49:31.000000 803444 x.cpp:1] Transfer failed\n")
	want := map[string]string{"MOONCAKE_PROTOCOL": "rdma", "MOONCAKE_DEVICE": "mlx5_0,mlx5_1", "MOONCAKE_GLOBAL_SEGMENT_SIZE": "0", "MC_GID_INDEX": "3"}
	if !reflect.DeepEqual(ev.Env, want) {
		t.Errorf("env %v", ev.Env)
	}
	if ev.Flags["--hicache-storage-backend"] != "mooncake" {
		t.Errorf("flags %v", ev.Flags)
	}
	// 33 s between "Connected" and the timeout line (an I line saying
	// timeout); the E line a second later is no gap.
	if len(ev.Gaps) != 1 || ev.Gaps[0].Seconds != 33 || ev.Gaps[0].Before.N != 7 {
		t.Errorf("gaps %+v", ev.Gaps)
	}
	facts := strings.Join(ev.Facts(), "\n")
	for _, f := range []string{"env MOONCAKE_PROTOCOL=rdma", "flag --hicache-storage-backend=mooncake", "gap 33s before an error"} {
		if !strings.Contains(facts, f) {
			t.Errorf("no fact %q in\n%s", f, facts)
		}
	}
}

func TestParseClassesErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"classes:\n  - name: a\n    cause: c\n    remedy: r\n    patterns:\n      - {re: '(', weight: 1}\n", `t.yaml:6: class "a": error parsing regexp`},
		{"classes:\n  - name: a\n    cause: c\n    remedy: r\n  - name: a\n    cause: c\n    remedy: r\n", `t.yaml:5: class "a" already defined at line 2`},
		{"classes:\n  - name: a\n    patterns: []\n", `t.yaml:2: class "a" needs a cause and a remedy`},
		{"classes:\n  - name: a\n    cause: c\n    remedy: r\n    patterns:\n      - {re: 'x', weight: 0}\n", `t.yaml:6: class "a": pattern "x": weight must be positive`},
		{"classes:\n  - name: a\n    bogus: 1\n", `t.yaml:3: unknown key "bogus"`},
	} {
		_, err := explain.ParseClasses("t.yaml", []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
	if _, err := explain.Classes(); err != nil {
		t.Fatal(err)
	}
}

func TestHumanize(t *testing.T) {
	got := explain.Humanize(`unable to set mooncake/rpc_meta/x in {{etcd}}; MOONCAKE_MASTER={{ master }}, {{other_role}}`)
	want := `unable to set mooncake/rpc_meta/x in <etcd's address>; MOONCAKE_MASTER=<the master's address>, <other role>`
	if got != want {
		t.Fatalf("%q", got)
	}
}

// A whole process log reads as its excerpt does: the same best cause, the
// repeats set aside, and the waits before a failure measured on every line
// (in the condensed log the QP failure's neighbour is 30 s older).
func TestDiagnoseLongLog(t *testing.T) {
	cat, fp := allFingerprints(t)
	excerpt := "E0729 05:04:30.000000 14093 rdma_endpoint.cpp:70] Failed to create QP: Cannot allocate memory [12]\n"
	var b strings.Builder
	for i := range 1000 {
		if i == 500 {
			b.WriteString(excerpt)
		}
		at := time.Duration(i) * 60 * time.Millisecond
		fmt.Fprintf(&b, "I0729 05:04:%02d.%06d 14093 client_service.cpp:1807] Time taken for batch_get_into: %dus\n", int(at.Seconds()), at.Microseconds()%1e6, 10000+i)
	}
	short, err := explain.Diagnose(cat, fp, excerpt, "")
	if err != nil {
		t.Fatal(err)
	}
	long, err := explain.Diagnose(cat, fp, b.String(), "")
	if err != nil {
		t.Fatal(err)
	}
	top := func(d explain.Diagnosis) string {
		if c, ok := d.Top(); ok {
			return c.Name
		}
		return "no-fit"
	}
	if top(long) != top(short) || top(short) != "io/rdma-qp-exhausted" {
		t.Errorf("best cause: long log %s, excerpt %s", top(long), top(short))
	}
	if long.Evidence.SetAside != 997 || len(long.Evidence.Gaps) != 0 {
		t.Errorf("set aside %d (want 997), gaps %+v (want none)", long.Evidence.SetAside, long.Evidence.Gaps)
	}
}

// A loader error while another package imports its own native module is
// a fact against Mooncake's install; Mooncake's own import (SGLang's
// `from mooncake.store import …`, the import machinery's frozen frames
// between) is not.
func TestForeignNativeImportFact(t *testing.T) {
	const fact = "native import failed outside mooncake: "
	for _, tc := range []struct {
		name, log, want string
	}{
		{"another package's extension", `Traceback (most recent call last):
  File "/usr/lib/python3.10/site-packages/lmcache/connector.py", line 7, in <module>
    import infinistore
  File "/usr/lib/python3.10/site-packages/infinistore/__init__.py", line 1, in <module>
    from .lib import ClientConfig
ImportError: libibverbs.so.1: cannot open shared object file: No such file or directory`, "infinistore"},
		{"mooncake under SGLang", `Traceback (most recent call last):
  File "/opt/venv/lib/python3.11/site-packages/sglang/srt/mem_cache/storage/mooncake_store/mooncake_store.py", line 212, in __init__
    from mooncake.store import MooncakeDistributedStore
  File "<frozen importlib._bootstrap>", line 1176, in _find_and_load
ImportError: libibverbs.so.1: cannot open shared object file: No such file or directory`, ""},
		{"mooncake's own module", `  File "/opt/venv/lib/python3.11/site-packages/mooncake/store/__init__.py", line 3, in <module>
    from ._store import *
ImportError: libcurl.so.4: cannot open shared object file: No such file or directory`, ""},
		{"no loader error", `  File "/usr/lib/python3.10/site-packages/infinistore/lib.py", line 9, in connect
    raise RuntimeError("x")
RuntimeError: x`, ""},
	} {
		var got []string
		for _, f := range explain.ParseLog(tc.log).Facts() {
			if strings.HasPrefix(f, fact) {
				got = append(got, strings.TrimPrefix(f, fact))
			}
		}
		if strings.Join(got, ",") != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// An exception's advice, or a line's, names a variable without stating
// the environment; a shell line states it.
func TestEnvNotFromExceptionAdvice(t *testing.T) {
	ev := explain.ParseLog("$ export MC_METADATA_HTTP_TOKEN=s3cret\n" +
		"RuntimeError: HTTP Metadata Server refuses to bind 0.0.0.0:8080 without an authentication token: ... or export MC_METADATA_HTTP_ALLOW_INSECURE=1 to keep the legacy open behavior.\n" +
		// Mooncake's own advice in an info line (transfer_engine.cpp).
		"I0617 14:02:14.685125 355565 transfer_engine.cpp:354] Metrics reporting is disabled (set MC_TE_METRIC=1 to enable)\n")
	if !reflect.DeepEqual(ev.Env, map[string]string{"MC_METADATA_HTTP_TOKEN": "s3cret"}) {
		t.Errorf("env %v", ev.Env)
	}
}
