package explain

import (
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/scenarios"
)

func TestSettingsFromLogIPv6Hostname(t *testing.T) {
	for _, tc := range []struct{ log, want string }{
		{"export MOONCAKE_LOCAL_HOSTNAME=[fd00::12]\n", "[::1]"},
		{"export MOONCAKE_LOCAL_HOSTNAME=fd00::12\n", "[::1]"},
		{"I0101 00:00:00.000001 7 transfer_engine.cpp:1] Transfer Engine parseHostNameWithPort. server_name: ::1 port: 12001\n", "[::1]"},
		{"I0101 00:00:00.000001 7 transfer_engine.cpp:1] Transfer Engine RPC using P2P handshake, listening on fd00::12:15875\n", "[::1]"},
		{"export MOONCAKE_LOCAL_HOSTNAME=10.0.0.7\n", ""},
		{"I0101 00:00:00.000001 7 transfer_engine.cpp:1] Transfer Engine RPC using P2P handshake, listening on 10.0.0.7:15875\n", ""},
	} {
		if got := settingsFromLog(ParseLog(tc.log))["MOONCAKE_LOCAL_HOSTNAME"]; got != tc.want {
			t.Errorf("%q: MOONCAKE_LOCAL_HOSTNAME %q, want %q", tc.log, got, tc.want)
		}
	}
}

// Only Mooncake's lines become expected lines: the caller's loggers
// (vLLM, SGLang, LMCache, Python logging), traceback source lines, the
// body of a multi-line exception and a death line do not; glog and
// easylog lines of C++ files and unprefixed lines of Mooncake's message
// families do, cut at the format's values.
func TestQuotedErrorsMooncakeOnly(t *testing.T) {
	log := `(Worker_TP1 pid=1) ERROR 11-10 20:25:57 [mooncake_connector.py:329] Failed to transfer KV cache for request cmpl-1: Mooncake transfer failed, ret: -1
[2025-09-04 01:00:51,159] LMCache ERROR: batch_get_buffer failed: boom
[2025-06-05 10:48:27 TP7] Mooncake memory registration failed.
ERROR:root:Failed to connect to the store
Traceback (most recent call last):
  File "/sgl/python/sglang/srt/disaggregation/mooncake/transfer_engine.py", line 36, in register
    raise RuntimeError("Mooncake memory registration failed.")
raise RuntimeError("Mooncake memory registration failed.")
RuntimeError: Mooncake memory registration failed.
    1. (self: mooncake.store.MooncakeDistributedStore, arg0: str) -> int
Invoked with: <mooncake.store.MooncakeDistributedStore object at 0x7af2a2487430>, None
Fatal Python error: Segmentation fault
*** Check failure stack trace: ***
E0302 09:15:07.980787     7 rdma_context.cpp:81] Failed to open device mlx5_bond_1 on port  with GID -1
2025-06-06 09:39:00.285457 ERROR    [382] [client_pool.hpp:923] async_resolve failed:Service not found
Unable to find metadata storage plugin etcd with conn string: etcd://10.72.12.100:2379
Failed to register memory 0x7fa3ce000000: Input/output error [5]
SocketHandShakePlugin: failed to get IP address of peer server fd00::12:16051, check DNS and /etc/hosts, or use IPv4 address instead: Resource temporarily unavailable [11]
Failed to create client on port 14046, retry 20/20
`
	var got []string
	for _, q := range quotedErrors(ParseLog(log)) {
		got = append(got, q.Text+" @"+q.File)
	}
	want := []string{
		"Failed to open device @rdma_context.cpp",
		"async_resolve failed:Service not found @client_pool.hpp",
		"Unable to find metadata storage plugin @transfer_metadata_plugin.cpp",
		"Input/output error [5] @rdma_context.cpp",
		// getaddrinfo returns its error: PLOG's errno there is incidental.
		"SocketHandShakePlugin: failed to get IP address of peer server @transfer_metadata_plugin.cpp",
		"Failed to create client on port @real_client.cpp",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

// Auto-discovery's lines mean no device was named: the draft drops the
// scenario's MOONCAKE_DEVICE; named devices, or a stated switch, keep it.
func TestSettingsFromLogAutoDiscovery(t *testing.T) {
	install := "E0302 09:15:07.980796     7 transfer_engine_impl.cpp:293] Failed to install RDMA transport, type=rdma\n"
	for _, tc := range []struct {
		log, proto, dev string
	}{
		{install, "rdma", unset},
		{"I0302 09:15:07.000001 7 client_service.cpp:241] Set auto discovery ON by default for RDMA protocol, since no device names provided\n", "rdma", unset},
		{"I0302 09:15:07.000001 7 client_service.cpp:292] Using specified RDMA devices: mlx5_1\n" + install, "", "mlx5_1"},
		{"export MC_MS_AUTO_DISC=1\n" + install, "", ""},
		{"export MOONCAKE_DEVICE=mlx5_2\n" + install, "", "mlx5_2"},
		{"export MOONCAKE_PROTOCOL=tcp\n" + install, "tcp", ""},
		{"E0302 09:15:07.980796 7 client_service.cpp:310] Failed to install RDMA transport with specified devices\n", "", ""},
	} {
		s := settingsFromLog(ParseLog(tc.log))
		if s["MOONCAKE_PROTOCOL"] != tc.proto || s["MOONCAKE_DEVICE"] != tc.dev {
			t.Errorf("%q: protocol %q device %q, want %q %q", tc.log, s["MOONCAKE_PROTOCOL"], s["MOONCAKE_DEVICE"], tc.proto, tc.dev)
		}
	}
}

// The versions a draft is tried at without a stated one: the match's,
// the scenario's own (newest first), then the other releases its
// constraints admit, those in the log's source range first, six at most.
func TestDraftVersions(t *testing.T) {
	cat, err := scenarios.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	sc := cat[slices.IndexFunc(cat, func(s *scenarios.Scenario) bool { return s.Name == "setup/roce-no-suitable-gid" })]
	got := draftVersions(sc, "0.3.14", Range{Since: "0.3.8.post1"})
	want := []string{"0.3.14", "0.3.9", "0.3.8.post1", "0.3.13.post1", "0.3.13", "0.3.12.post1"}
	if !slices.Equal(got, want) {
		t.Errorf("since 0.3.8.post1: %q, want %q", got, want)
	}
	// A log of a release the scenario does not list: its own release in
	// the range, then the range's others, newest first.
	sc = cat[slices.IndexFunc(cat, func(s *scenarios.Scenario) bool { return s.Name == "setup/local-hostname-bad-port" })]
	got = draftVersions(sc, "", Range{Until: "0.3.7.post2"})
	want = []string{"0.3.4.post2", "0.3.7.post2", "0.3.7.post1", "0.3.7", "0.3.4.post1", "0.3.4"}
	if !slices.Equal(got, want) {
		t.Errorf("until 0.3.7.post2: %q, want %q", got, want)
	}
}

// ld.so's line for a Mooncake program is Mooncake's process speaking: the
// quote keeps the library (it names the cause), not the field's path; a
// line of another program is none of Mooncake's.
func TestQuotedLoaderLine(t *testing.T) {
	log := `/home/u/venv/lib/python3.10/site-packages/mooncake/mooncake_master: error while loading shared libraries: libcudart.so.12: cannot open shared object file: No such file or directory
/usr/bin/other: error while loading shared libraries: libfoo.so.1: cannot open shared object file: No such file or directory
`
	var got []string
	for _, q := range quotedErrors(ParseLog(log)) {
		got = append(got, q.Text+" @"+q.File)
	}
	want := []string{"mooncake_master: error while loading shared libraries: libcudart.so.12: cannot open shared object file: No such file or directory @ld.so"}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

// glibc's assert line of a Mooncake source file is the death and a line
// to check; another program's assert is neither a quote nor Mooncake's.
func TestQuotedAssertLine(t *testing.T) {
	for _, c := range []struct {
		name, log, sig string
		want           []string
	}{
		{"mooncake", "mooncake_client: /home/runner/work/Mooncake/Mooncake/mooncake-store/src/file_storage.cpp:598: tl::expected<std::shared_ptr<mooncake::FileStorage::AllocatedBatch>, mooncake::ErrorCode> mooncake::FileStorage::AllocateBatch(const std::vector<std::__cxx11::basic_string<char> >&, const std::vector<long int>&): Assertion `sizes[i] <= kMaxSliceSize' failed.\n",
			"SIGABRT", []string{"Assertion `sizes[i] <= kMaxSliceSize' failed. @file_storage.cpp"}},
		{"other program", "python3: /src/numpy/core/foo.c.cpp:10: void f(): Assertion `x' failed.\n", "SIGABRT", nil},
		{"no assert", "mooncake_client: file_storage.cpp:598: all good\n", "", nil},
	} {
		ev := ParseLog(c.log)
		var got []string
		for _, q := range quotedErrors(ev) {
			got = append(got, q.Text+" @"+q.File)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: quoted %q, want %q", c.name, got, c.want)
		}
		if sig, _ := logDeath(c.log, ev); sig != c.sig {
			t.Errorf("%s: death %q, want %q", c.name, sig, c.sig)
		}
	}
}

func TestCallerCodes(t *testing.T) {
	for _, tc := range []struct {
		log  string
		want []int
	}{
		{"(EngineCore pid=1) ERROR 07-23 11:54:45 [mooncake_backend.py:240] Failed to get 6722 keys out of 6722. error_codes=[-707]. Check key existence and memory state.", []int{-707}},
		{"(Worker pid=1) ERROR 03-28 09:06:16 [mooncake_backend.py:85] Failed to put key ['k0'],res:[-800]", []int{-800}},
		{"ERROR [x.py:1] batch results=[4096, -704, -704, 0, -800]", []int{-704, -800}},
		// Mooncake's own lines name their codes; quotedErrors reads them.
		{"E0101 00:00:00.000001 7 client_service.cpp:1] codes=[-800]", nil},
		{"ERROR [x.py:1] all good: res:[4096, 0]", nil},
	} {
		if got := callerCodes(ParseLog(tc.log)); !slices.Equal(got, tc.want) {
			t.Errorf("%q: %v, want %v", tc.log, got, tc.want)
		}
	}
	every := -800
	codes := map[string]scenarios.CodeExpect{
		"batch_get_into": {Seq: []int{-707, -707, 4096}},
		"put":            {Every: &every},
		"setup":          {Seq: []int{0}},
	}
	for _, tc := range []struct {
		want []int
		got  []string
	}{
		{[]int{-707}, []string{"batch_get_into"}},
		{[]int{-800}, []string{"put"}},
		{[]int{-707, -800}, nil},
		{[]int{-704}, nil},
	} {
		m := methodsReturning(codes, tc.want)
		var got []string
		for k := range m {
			got = append(got, k)
		}
		if slices.Sort(got); !slices.Equal(got, tc.got) {
			t.Errorf("methodsReturning(%v) = %v, want %v", tc.want, got, tc.got)
		}
	}
}

// A failure Mooncake reports at INFO is an error line a draft must
// reproduce; a healthy summary, an idle one and a recovery are not.
func TestQuotedFailureEvents(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"I0320 11:44:12.713064 1965 real_client.cpp:2127] client_id=10684295550290858646-16823729354007242427, action=client_expired", "action=client_expired @real_client.cpp"},
		{"I1204 10:00:10.000000 7 master_service.cpp:40] client_id=1-2, action=client_liveness_suspected", "action=client_liveness_suspected @master_service.cpp"},
		{"Eviction: Success/Attempts=0/649, AllocFail=12160, keys=0, size=0 B", "Eviction: Success/Attempts=0/ @master_metric_manager.cpp"},
		{"Eviction: Success/Attempts=6/6, AllocFail=3, keys=146150, size=10.04 GB", ""},
		{"Eviction: Success/Attempts=0/0, AllocFail=0, keys=0, size=0 B", ""},
		{"I1204 10:00:20.000000 7 master_service.cpp:60] client_id=1-2, action=client_liveness_recovered, signal=ping", ""},
	} {
		ev := ParseLog(c.line)
		var got string
		for _, q := range quotedErrors(ev) {
			got = q.Text + " @" + q.File
		}
		if got != c.want {
			t.Errorf("%q: quoted %q, want %q", c.line, got, c.want)
		}
		if ShowsError(c.line, ev) != (c.want != "") {
			t.Errorf("%q: ShowsError %v, want %v", c.line, !(c.want != ""), c.want != "")
		}
	}
}

// A gdb backtrace names no signal: its innermost frames do.
func TestBacktraceSignal(t *testing.T) {
	for _, c := range []struct{ name, log, want string }{
		{"memcpy faults", "#0  __memcpy_avx512_unaligned_erms ()\n    at ../sysdeps/x86_64/multiarch/memmove-vec-unaligned-erms.S:265\n#1  mooncake::MemcpyWorkerPool::workerThread ()\n", "SIGSEGV"},
		{"with an address", "#0  0x00007f3a1c2b4e5d in __memmove_avx_unaligned_erms () from /lib/x86_64-linux-gnu/libc.so.6\n", "SIGSEGV"},
		{"abort", "#0  __pthread_kill_implementation (no_tid=0, signo=6, threadid=1) at ./nptl/pthread_kill.c:44\n#1  0x00007ffff7c4526e in __GI_raise (sig=sig@entry=6) at ../sysdeps/posix/raise.c:26\n#2  0x00007ffff7c288ff in __GI_abort () at ./stdlib/abort.c:79\n", "SIGABRT"},
		{"memcpy not innermost", "#0  mooncake::Foo::bar ()\n#1  memcpy ()\n", ""},
		{"abort deep in the stack", "#0  a ()\n#1  b ()\n#2  c ()\n#3  abort ()\n", ""},
		{"a sentence", "the copy failed in memcpy (see #0)\n", ""},
	} {
		if got := backtraceSignal(c.log); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestCrashFrame(t *testing.T) {
	for _, c := range []struct{ name, log, want string }{
		{"gdb, libc innermost", "#0  __memcpy_avx512_unaligned_erms ()\n    at ../sysdeps/x86_64/multiarch/memmove-vec-unaligned-erms.S:265\n#1  mooncake::MemcpyWorkerPool::workerThread ()\n    from .../site-packages/mooncake/store.so\n", "MemcpyWorkerPool::workerThread"},
		{"gdb with an address", "#3  0x00007f1 in mooncake::RdmaEndPoint::destroyQP() () from engine.so\n#4  0x00007f2 in mooncake::RdmaEndPoint::~RdmaEndPoint() ()\n", "RdmaEndPoint::destroyQP"},
		{"glog's failure handler", "*** SIGSEGV (@0x0) received by PID 7 (TID 0x7f) from PID 0; stack trace: ***\n    @     0x7f3c1 (unknown)\n    @     0x7f3c2 ibv_post_send\n    @     0x7f3c3 mooncake::RdmaEndPoint::submitPostSend()\n", "ibv_post_send"},
		{"backward-cpp", "!!!!!!! Segfault encountered !!!!!!!\n  File \"<unknown>\", line 0, in std::__cxx11::basic_string<char>::_M_append(char const*, unsigned long)\n  File \"<unknown>\", line 0, in _PyObject_MakeTpCall\n", ""},
		{"libc only", "#0  _int_malloc (av=0x7f) at ./malloc/malloc.c:4008\n#1  0x00007fe0 in operator new(unsigned long) ()\n", ""},
		{"python frames only", "Fatal Python error: Segmentation fault\n  File \"/x/transfer_engine.py\", line 102 in batch_transfer_sync\n", ""},
		{"prose", "it crashed in mooncake::MemcpyWorkerPool::workerThread\n", ""},
	} {
		if got := crashFrame(c.log); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// A failed slice's status is the draft's rdma fault's mode: the first one
// the log names that a fault can inject, in either release's wording.
func TestWCStatusFromLog(t *testing.T) {
	for _, tc := range []struct{ log, want string }{
		{"E0603 20:16:59.104586 27322 worker_pool.cpp:271] Worker: Process failed for slice (opcode: 1, source_addr: 0x7f20fe0f1680, length: 65536, dest_addr: 0x7f3d820f3a80, local_nic: mlx5_7, peer_nic: 10.93.81.13:15729@mlx5_0, dest_rkey: 2116517, retry_cnt: 0): transport retry counter exceeded\n", "retry_exceeded"},
		{"Worker: Process failed for slice (opcode: 1, source_addr: 0x1, length: 3584, dest_addr: 0x2, local_nic: mlx5_0, peer_nic: h:1@mlx5_0, dest_rkey: 3, retry_cnt: 0, max_retry_cnt: 9): remote access error.\n", "remote_access"},
		{"Worker: Process failed for slice (...): Work Request Flushed Error\nWorker: Process failed for slice (...): local protection error\n", "local_protection"},
		{"Worker: Process failed for slice (...): Work Request Flushed Error\n", ""},
		{"Failed to complete transfers after 60 seconds\n", ""},
	} {
		st, ok := wcStatusFromLog(tc.log)
		if st.Mode != tc.want || ok != (tc.want != "") {
			t.Errorf("%q: %q %v, want %q", tc.log, st.Mode, ok, tc.want)
		}
	}
}

// ld.so's line for a Mooncake program that needs a version its host's
// libstdc++ lacks is a line to check: its version, not the field's path.
func TestQuotedLoaderVersionLine(t *testing.T) {
	log := "mooncake_master: /lib64/libstdc++.so.6: version `GLIBCXX_3.4.30' not found\n" +
		"/usr/bin/other: /lib64/libstdc++.so.6: version `GLIBCXX_3.4.31' not found (required by /usr/bin/other)\n"
	var got []string
	for _, q := range quotedErrors(ParseLog(log)) {
		got = append(got, q.Text+" @"+q.File)
	}
	if want := []string{"version `GLIBCXX_3.4.30' not found @ld.so"}; !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}
