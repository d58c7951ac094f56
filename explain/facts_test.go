package explain_test

import (
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/explain"
)

// What a line says beyond its words: where in Mooncake it comes from, the
// errno, code and work-completion status it carries (exact facts, as
// the class tables match them).
func TestLineFacts(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"errno by text and number, subsystem by file",
			"E0511 07:42:36.355509 10240 rdma_context.cpp:198] Failed to register memory 0x2e1cbac200: Bad address [14]",
			[]string{"mooncake error in rdma-device", "errno EFAULT (14, Bad address) in rdma-device"}},
		{"asio's errno, a warning",
			"W0708 09:26:26.525108   368 tcp_transport.cpp:136] Session::writeBody failed. Error: Connection reset by peer (value: 104)",
			[]string{"mooncake warning in tcp", "errno ECONNRESET (104, Connection reset by peer) in tcp"}},
		{"errno by number only",
			"E0101 00:00:00.000000 1 client.cpp:1] mmap failed, errno=12",
			[]string{"mooncake error in store-client", "errno ENOMEM (12, Cannot allocate memory) in store-client", "mooncake source files of 0.3.7.post2 or earlier"}},
		{"subsystem by prefix when glog's is trimmed",
			"Worker: Process failed for slice (opcode: 0, source_addr: 0x7f, length: 65536, dest_addr: 0x7e, local_nic: mlx5_0, peer_nic: 10.0.0.2:15000@mlx5_0, dest_rkey: 1, retry_cnt: 0): transport retry counter exceeded",
			[]string{"mooncake error in rdma-datapath", "rdma work completion failed: transport retry counter exceeded in rdma-datapath"}},
		{"store code by name",
			"E0616 07:25:02.248354 40411 client.cpp:380] Failed to start put operation: NO_AVAILABLE_HANDLE",
			[]string{"mooncake error in store-client", "code NO_AVAILABLE_HANDLE (-200) in store-client", "mooncake source files of 0.3.7.post2 or earlier"}},
		{"store code by number",
			"RuntimeError: Failed to setup Mooncake store, error code: -600",
			[]string{"code INVALID_PARAMS (-600)"}},
		{"the transfer engine's -200 is ERR_METADATA",
			"E0302 09:15:07.980798     7 client_service.cpp:288] Failed to initialize transfer engine, rc=-200",
			[]string{"mooncake error in store-client", "code ERR_METADATA (-200) in store-client", "mooncake source files of 0.3.8 or later"}},
		{"-1 says only that it failed",
			"RuntimeError: Failed to setup Mooncake store, error code: -1", nil},
		{"a timeout in the transfer path",
			"E0331 02:49:30.617945 803444 transfer_engine_py.cpp:454] Sync batch data transfer timeout after 33061142969ns",
			[]string{"mooncake error in transfer-engine", "timeout in transfer-engine"}},
		{"an error line every healthy standalone setup prints is no failure",
			"E20260701 17:08:51.688711 12054 dummy_client.cpp:1430] Failed to receive hot cache fd, status=-1",
			[]string{"mooncake source files of 0.3.8 or later"}},
		{"an info line is no failure",
			"I0513 11:04:17.446906  5509 transfer_engine.cpp:100] Transfer Engine RPC using P2P handshake, listening on 10.148.0.107:16845", nil},
		{"the integration's frame",
			`  File "/opt/app/lib/python3.12/site-packages/sglang/srt/disaggregation/mooncake/conn.py", line 173, in register_buffer_to_engine`,
			[]string{"python sglang srt/disaggregation/mooncake/conn.py"}},
		{"the longer errno text wins",
			"E0101 00:00:00.000000 1 mystery.cpp:1] open /dev/infiniband/uverbs0: No such device or address",
			[]string{"errno ENXIO (6, No such device or address)"}},
		{"an unknown file names no subsystem",
			"E0101 00:00:00.000000 1 mystery.cpp:1] Failed: Invalid argument [22]",
			[]string{"errno EINVAL (22, Invalid argument)"}},
	} {
		got := explain.ParseLog(tc.in).Facts()
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s:\n got  %q\n want %q", tc.name, got, tc.want)
		}
	}
}

// A traceback cut before its exception line has no outcome: the catalog
// scenarios still count by their lines (as for any log cut short).
func TestDiagnoseTracebackCutShort(t *testing.T) {
	cat, fp := allFingerprints(t)
	log := "E1130 12:00:01.120000  4242 transfer_metadata_plugin.cpp:235] PUT http://10.0.0.2:8080/metadata?key=mooncake%2Frpc_meta%2Flocalhost%3A12345 curl: Couldn't connect to server err: Failed to connect to 10.0.0.2 port 8080 after 0 ms: Couldn't connect to server\n" +
		"Traceback (most recent call last):\n" +
		`  File "/sgl-workspace/sglang/python/sglang/srt/mem_cache/storage/mooncake_store/mooncake_store.py", line 250, in __init__` + "\n"
	d, err := explain.Diagnose(cat, fp, log, "0.3.13.post1")
	if err != nil {
		t.Fatal(err)
	}
	all := append(append([]explain.Cause{}, d.Causes...), d.Nearest...)
	i := slices.IndexFunc(all, func(c explain.Cause) bool { return c.Name == "setup/http-metadata-unreachable" })
	if i < 0 || all[i].Evidence[0] != "outcome not in the log (cut short?)" {
		t.Fatalf("%v", all)
	}
}

// The files glog names bound the release: client_service.cpp came in
// 0.3.8, client.cpp left after 0.3.7.post2; both at once are two
// processes of two releases, which bound nothing. So do formats that
// changed.
func TestSourceRange(t *testing.T) {
	for _, tc := range []struct {
		in    string
		since string
		until string
	}{
		{"E0302 09:15:07.980798 7 client_service.cpp:288] x\nE0302 09:15:07.980796 7 transfer_engine_impl.cpp:293] y\n", "0.3.8.post1", ""},
		{"E0616 07:25:02.248354 40411 client.cpp:380] x\n", "", "0.3.7.post2"},
		{"E0616 07:25:02.248354 40411 client.cpp:380] x\nE0616 07:25:02.248354 1 rpc_service.cpp:1] y\n", "0.3.5", "0.3.7.post2"},
		{"E0616 07:25:02.248354 40411 client.cpp:380] x\nE0302 09:15:07.980798 7 client_service.cpp:288] y\n", "", ""},
		{"E0302 09:15:07.980787 7 rdma_context.cpp:81] x\n", "", ""},
		// The failed slice's format: max_retry_cnt from 0.3.12.
		{"E1201 10:00:02.000000 1 worker_pool.cpp:606] Worker: Process failed for slice (opcode: 1, source_addr: 0x1, length: 4, dest_addr: 0x2, local_nic: mlx5_0, peer_nic: p:1@mlx5_0, dest_rkey: 2, retry_cnt: 3, max_retry_cnt: 9): general error\n", "0.3.12", ""},
		{"E1201 10:00:02.000000 1 worker_pool.cpp:271] Worker: Process failed for slice (opcode: 1, source_addr: 0x1, length: 4, dest_addr: 0x2, local_nic: mlx5_0, peer_nic: p:1@mlx5_0, dest_rkey: 2, retry_cnt: 3): general error\n", "", "0.3.11.post1"},
	} {
		r := explain.ParseLog(tc.in).MooncakeRange
		if r.Since != tc.since || r.Until != tc.until {
			t.Errorf("%q: %+v", tc.in, r)
		}
	}
	r := explain.Range{Since: "0.3.5", Until: "0.3.7.post2"}
	if !r.Contains("0.3.5") || !r.Contains("0.3.7.post2") || r.Contains("0.3.4.post2") || r.Contains("0.3.8") || r.Contains("x") {
		t.Fatalf("Contains %+v", r)
	}
}

// A failed slice whose status says the peer never acknowledged fits a GID
// the peers cannot route as well as a failing path: explain names
// neither. One whose status is a protection error is the path's.
func TestDiagnoseWorkCompletionStatus(t *testing.T) {
	cat, fp := allFingerprints(t)
	slice := "E0101 00:00:00.000000 7 worker_pool.cpp:245] Worker: Process failed for slice (opcode: 0, source_addr: 0x7f, length: 65536, dest_addr: 0x7e, local_nic: mlx5_0, peer_nic: 10.0.0.2:15000@mlx5_0, dest_rkey: 1, retry_cnt: 0): "
	d, err := explain.Diagnose(cat, fp, slice+"transport retry counter exceeded\n", "")
	if err != nil {
		t.Fatal(err)
	}
	if d.Verdict != "no-fit" || len(d.Nearest) < 2 || d.Ambiguous == "" ||
		!slices.ContainsFunc(d.Nearest[:2], func(c explain.Cause) bool { return c.Name == "io/rdma-work-completion-error" }) ||
		!slices.ContainsFunc(d.Nearest[:2], func(c explain.Cause) bool { return c.Name == "setup/roce-no-suitable-gid" }) {
		t.Fatalf("retry: %s %q %v", d.Verdict, d.Ambiguous, d.Nearest)
	}
	d, err = explain.Diagnose(cat, fp, slice+"local protection error\n", "")
	if err != nil {
		t.Fatal(err)
	}
	// The class's 12 points go to the world it links, which adds its own
	// evidence: the failed slice's line, weighed by its rarity in the
	// catalog (2.30 of 14.30 points when the world was added; it moves a
	// little with every scenario).
	if top, ok := d.Top(); !ok || top.Name != "io/rdma-work-completion-error" || top.Points <= 12 || top.Points >= 15 {
		t.Fatalf("protection: %v", d.Causes)
	}
}

// A wait before an error says whose error it was.
func TestGapSubsystem(t *testing.T) {
	got := explain.ParseLog("I0331 02:48:57.801054 803278 ascend_direct_transport.cpp:1119] Connected to segment\n" +
		"E0331 02:49:30.617945 803444 transfer_engine_py.cpp:454] Sync batch data transfer failed\n").Facts()
	want := []string{"gap 33s before an error", "gap 33s before an error in transfer-engine", "mooncake error in transfer-engine", "mooncake source files of 0.3.6 or later"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q", got)
	}
}
