package mooncake

import (
	"strings"
	"testing"
)

func TestParseVersion(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{"0.3.10.post1", "0.3.10.post1", ""},
		{"v0.3.9", "0.3.9", ""},
		{"0.3", "", `invalid Mooncake version "0.3": want MAJOR.MINOR.PATCH[.postN]`},
		{"0.3.x", "", `invalid Mooncake version "0.3.x": "x" is not a number`},
		{"0.3.9.rc1", "", `invalid Mooncake version "0.3.9.rc1": "rc1" is not postN`},
	} {
		v, err := ParseVersion(tc.in)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("ParseVersion(%q) error = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || v.String() != tc.want {
			t.Errorf("ParseVersion(%q) = %v, %v; want %s", tc.in, v, err, tc.want)
		}
	}
}

func TestVersionsAreSortedAndProfiled(t *testing.T) {
	for i, s := range Versions {
		if _, err := ProfileFor(s); err != nil {
			t.Fatalf("ProfileFor(%s): %v", s, err)
		}
		if i > 0 && MustVersion(Versions[i-1]).Compare(MustVersion(s)) >= 0 {
			t.Fatalf("Versions not ascending at %s", s)
		}
	}
	if Versions[len(Versions)-1] != Latest {
		t.Fatalf("Latest = %s, newest listed = %s", Latest, Versions[len(Versions)-1])
	}
	if _, err := ProfileFor("0.3.99"); err == nil || !strings.HasPrefix(err.Error(), `unknown Mooncake version "0.3.99": known versions are 0.3.0, 0.3.1`) {
		t.Fatalf("unknown version error = %v", err)
	}
}

func TestConstraint(t *testing.T) {
	for _, tc := range []struct {
		c    Constraint
		v    string
		want bool
	}{
		{">=0.3.9", "0.3.9", true},
		{">=0.3.9", "0.3.8.post1", false},
		{"<0.3.5", "0.3.4.post2", true},
		{"0.3.5-0.3.8.post1", "0.3.8.post1", true},
		{"0.3.5-0.3.8.post1", "0.3.9", false},
		{"0.3.12", "0.3.12", true},
		{"0.3.12", "0.3.12.post1", false},
		{"*", "0.3.0", true},
	} {
		got, err := tc.c.Match(MustVersion(tc.v))
		if err != nil || got != tc.want {
			t.Errorf("%q.Match(%s) = %v, %v; want %v", tc.c, tc.v, got, err, tc.want)
		}
	}
}

// The profiles encode the setup-signature history of reference §2.2.
func TestSetupSignatureHistory(t *testing.T) {
	for _, tc := range []struct {
		version string
		kwargs  []string
		npos    int
		match   bool
	}{
		{"0.3.6.post1", nil, 8, false}, // SGLang's 8 positionals on a 7-positional binding
		{"0.3.6.post1", nil, 7, true},
		{"0.3.7", nil, 8, true},
		{"0.3.10.post1", []string{"enable_ssd_offload"}, 8, false},
		{"0.3.10.post2", []string{"enable_ssd_offload", "ssd_offload_path"}, 8, true},
		{"0.3.11.post1", []string{"tenant_id"}, 8, false},
		{"0.3.12", []string{"tenant_id", "enable_client_http_server", "client_http_port"}, 8, true},
		{"0.3.13.post1", []string{"bogus_kw"}, 8, false},
		{"0.3.13.post1", []string{"protocol"}, 8, false}, // given twice
	} {
		p, _ := ProfileFor(tc.version)
		if got := SetupCallMatches(p, tc.npos, tc.kwargs); got != tc.match {
			t.Errorf("%s: SetupCallMatches(%d, %v) = %v, want %v", tc.version, tc.npos, tc.kwargs, got, tc.match)
		}
	}
}

// Texts copied from real wheels (0.3.9 and 0.3.13.post1 non-cuda, recorded
// in docs/ENGINES.md): the simulator's TypeError must equal them after
// address normalisation.
func TestSetupTypeErrorMatchesRealWheels(t *testing.T) {
	pos := []any{"127.0.0.1:17780", "P2PHANDSHAKE", int64(16777216), int64(16777216), "tcp", "", "127.0.0.1:50251", nil}
	real039 := "setup(): incompatible function arguments. The following argument types are supported:\n" +
		"    1. (self: mooncake.store.MooncakeDistributedStore, local_hostname: str, metadata_server: str, global_segment_size: typing.SupportsInt, local_buffer_size: typing.SupportsInt, protocol: str, rdma_devices: str, master_server_addr: str, engine: object = None) -> int\n" +
		"    2. (self: mooncake.store.MooncakeDistributedStore, config: dict) -> int\n\n" +
		"Invoked with: <mooncake.store.MooncakeDistributedStore object at 0x7f3bd34f52b0>, '127.0.0.1:17780', 'P2PHANDSHAKE', 16777216, 16777216, 'tcp', '', '127.0.0.1:50251', None; kwargs: enable_ssd_offload=True, ssd_offload_path='/tmp/x'"
	p, _ := ProfileFor("0.3.9")
	got := SetupTypeError(p, pos, []KV{{"enable_ssd_offload", true}, {"ssd_offload_path", "/tmp/x"}})
	if NormalizeAddresses(got) != NormalizeAddresses(real039) {
		t.Errorf("0.3.9 TypeError differs from the real wheel:\n got: %q\nwant: %q", got, real039)
	}

	real0313 := "setup(): incompatible function arguments. The following argument types are supported:\n" +
		"    1. (self: mooncake.store.MooncakeDistributedStore, local_hostname: str, metadata_server: str, global_segment_size: int, local_buffer_size: int, protocol: str, rdma_devices: str, master_server_addr: str, engine: object = None, enable_ssd_offload: bool = False, ssd_offload_path: str = '', tenant_id: str = 'default', enable_client_http_server: bool = False, client_http_port: int = 9300) -> int\n" +
		"    2. (self: mooncake.store.MooncakeDistributedStore, config: dict) -> int\n\n" +
		"Invoked with: <mooncake.store.MooncakeDistributedStore object at 0x7f3437f820f0>, '127.0.0.1:17780', 'P2PHANDSHAKE', 16777216, 16777216, 'tcp', '', '127.0.0.1:50251', None; kwargs: bogus_kw=1"
	p, _ = ProfileFor("0.3.13.post1")
	got = SetupTypeError(p, pos, []KV{{"bogus_kw", int64(1)}})
	if NormalizeAddresses(got) != NormalizeAddresses(real0313) {
		t.Errorf("0.3.13.post1 TypeError differs from the real wheel:\n got: %q\nwant: %q", got, real0313)
	}
}

func TestCodes(t *testing.T) {
	if c, ok := CodeByName("RPC_TIMEOUT"); !ok || c != -901 {
		t.Fatalf("RPC_TIMEOUT = %d, %v", c, ok)
	}
	if INVALID_PARAMS.Error() != "INVALID_PARAMS(-600)" || ErrorCode(-12345).Name() != "UNKNOWN_ERROR_CODE_-12345" {
		t.Fatalf("names: %s %s", INVALID_PARAMS.Error(), ErrorCode(-12345).Name())
	}
	cs := Codes()
	if cs[0] != OK || cs[len(cs)-1] != TENANT_NOT_EMPTY || len(cs) != len(codeNames) {
		t.Fatalf("Codes() order: first %v last %v len %d", cs[0], cs[len(cs)-1], len(cs))
	}
}

// Registration and segment gates read at the tags (issue 9): the
// boundaries on both sides of every change.
func TestRegistrationGates(t *testing.T) {
	type gates struct{ check, params, split, env, binder, rollback, chunk bool }
	for _, c := range []struct {
		v    string
		want gates
	}{
		{"0.3.4.post2", gates{}},
		{"0.3.5", gates{split: true}},
		{"0.3.6", gates{check: true, params: true, split: true, binder: true}},
		{"0.3.10", gates{check: true, params: true, split: true, binder: true}},
		{"0.3.10.post1", gates{check: true, params: true, split: true, env: true, binder: true}},
		{"0.3.12.post1", gates{check: true, params: true, split: true, env: true, binder: true}},
		{"0.3.13", gates{params: true, env: true, binder: true, rollback: true, chunk: true}},
	} {
		p := MustProfile(c.v)
		got := gates{p.StoreMRSizeCheck, p.RegisterParamChecks, p.SegmentSplit, p.MaxMRSizeEnv, p.AutoPortBinder, p.RegisterRollback, p.ChunkLargeMR}
		if got != c.want {
			t.Errorf("%s: gates %+v, want %+v", c.v, got, c.want)
		}
	}
}

// The master RPC sizes measured on real wheels (wire.go): the measured
// calls come back exactly, keys size requests, versions between rows take
// the row below.
func TestMasterWire(t *testing.T) {
	key64 := strings.Repeat("k", 64)
	cases := []struct {
		version, op string
		keys        []string
		req, resp   int64
	}{
		{"0.3.13.post1", "PutStart", []string{key64}, 195, 126},
		{"0.3.13.post1", "PutEnd", []string{key64}, 137, 26},
		{"0.3.13.post1", "ExistKey", []string{key64 + "zz"}, 107, 27},
		{"0.3.13.post1", "GetReplicaList", []string{key64}, 105, 140},
		{"0.3.13.post1", "BatchExistKey", []string{strings.Repeat("k", 68)}, 111, 29},
		{"0.3.13.post1", "BatchExistKey", []string{strings.Repeat("k", 68), strings.Repeat("k", 68), strings.Repeat("k", 68), strings.Repeat("k", 68)}, 318, 35},
		{"0.3.13.post1", "MountSegment", nil, 137, 26},
		{"0.3.13.post1", "BatchPutStart", []string{strings.Repeat("k", 68), strings.Repeat("k", 68), strings.Repeat("k", 68), strings.Repeat("k", 68)}, 434, 281},
		{"0.3.13.post1", "BatchPutStart", []string{strings.Repeat("k", 68)}, 203, 128},
		{"0.3.13.post1", "BatchPutEnd", []string{strings.Repeat("k", 68)}, 143, 28},
		{"0.3.13.post1", "BatchGetReplicaList", []string{strings.Repeat("k", 68), strings.Repeat("k", 68), strings.Repeat("k", 68), strings.Repeat("k", 68)}, 318, 322},
		{"0.3.9", "BatchGetReplicaList", []string{strings.Repeat("k", 60)}, 91, 121},
		{"0.3.9", "PutStart", []string{key64}, 148, 108},
		{"0.3.9", "BatchExistKey", []string{strings.Repeat("k", 68), strings.Repeat("k", 68), strings.Repeat("k", 68), strings.Repeat("k", 68)}, 306, 35},
		{"0.3.10", "PutStart", []string{key64}, 148, 108}, // 0.3.9's row
		{"0.3.11.post1", "PutStart", []string{key64}, 165, 118},
		{"0.3.8.post1", "GetReplicaList", []string{key64}, 93, 104},
		{"0.3.5", "PutEnd", []string{key64}, 100, 26}, // the oldest row (0.3.7.post2)
		{"0.3.12.post1", "PutRevoke", []string{key64}, 132, 26},
	}
	for _, c := range cases {
		req, resp, ok := MustProfile(c.version).MasterWire.Bytes(c.op, c.keys)
		if !ok || req != c.req || resp != c.resp {
			t.Errorf("%s %s: %d/%d ok=%v, want %d/%d", c.version, c.op, req, resp, ok, c.req, c.resp)
		}
	}
	for i, r := range wireBatchRows {
		// The batch rows belong to the same versions, and four keys minus one
		// key splits into three whole per-key parts.
		if r.version != wireRows[i].version {
			t.Errorf("batch row %d is %s, single-key row %s", i, r.version, wireRows[i].version)
		}
		for j, m := range r.row {
			if (m[2]-m[0])%3 != 0 || (m[3]-m[1])%3 != 0 {
				t.Errorf("%s batch RPC %d: %v does not split per key", r.version, j, m)
			}
		}
	}
	if _, _, ok := MustProfile("0.3.13.post1").MasterWire.Bytes("FetchTasks", nil); ok {
		t.Error("FetchTasks: the model sends none; want ok=false")
	}
}

// The store's local fast path and the remount's re-publication per tag
// (transfer_task.cpp TransferSubmitter, client_service.cpp remount_segment).
func TestStoreMemcpyAndRepublish(t *testing.T) {
	for _, tc := range []struct {
		version                string
		env                    string
		set, tcpOnly, memcpy   bool
		batchLogged, republish bool
	}{
		{"0.3.0", "", false, true, false, true, false},
		{"0.3.2.post1", "0", true, true, true, true, false}, // no switch yet
		{"0.3.3.post2", "1", true, true, false, true, false},
		{"0.3.4", "", false, false, true, true, false},
		{"0.3.4.post2", "off", true, true, false, true, false},
		{"0.3.7.post2", "", false, true, false, true, false},
		{"0.3.7.post2", "Yes", true, false, true, true, false},
		{"0.3.9", "bogus", true, true, true, true, false}, // "defaulting to enabled"
		{"0.3.10.post1", "", false, true, false, true, false},
		{"0.3.10.post2", "", false, true, true, false, false}, // VLOG(1) from v0.3.10.post2 transfer_task.cpp:255
		{"0.3.11", "", false, false, false, false, false},
		{"0.3.12", "", false, true, true, false, true},
		{"0.3.13.post1", "false", true, true, false, false, true},
	} {
		p, err := ProfileFor(tc.version)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.StoreMemcpy.LocalMemcpy(tc.env, tc.set, tc.tcpOnly); got != tc.memcpy {
			t.Errorf("%s MC_STORE_MEMCPY=%q (set %v, tcp-only %v): memcpy %v, want %v", tc.version, tc.env, tc.set, tc.tcpOnly, got, tc.memcpy)
		}
		if p.TransferBatchFailLogged != tc.batchLogged || p.RemountRepublish != tc.republish {
			t.Errorf("%s: TransferBatchFailLogged %v RemountRepublish %v, want %v %v", tc.version, p.TransferBatchFailLogged, p.RemountRepublish, tc.batchLogged, tc.republish)
		}
	}
}

// get_buffer_internal's GetLocalEndpoints (mounted_segments_mutex_) from
// v0.3.11 (real_client.cpp); v0.3.10.post2's GetPreferredReplica returns a
// single replica before locking.
func TestGetLocksMountedSegments(t *testing.T) {
	for v, want := range map[string]bool{"0.3.9": false, "0.3.10.post2": false, "0.3.11": true, "0.3.11.post1": true, "0.3.13.post1": true} {
		p, err := ProfileFor(v)
		if err != nil {
			t.Fatal(err)
		}
		if p.GetLocksMountedSegments != want {
			t.Errorf("%s: GetLocksMountedSegments %v, want %v", v, p.GetLocksMountedSegments, want)
		}
	}
}

// Three version facts read at the tags (issue 18): the batch-failure line
// drops to VLOG(1) at v0.3.10.post2 (transfer_task.cpp:255; ERROR at
// v0.3.10.post1:249), the HA backend texts first appear at v0.3.10.post1
// (client_service.cpp), and duration strings for default_kv_lease_ttl
// arrive at v0.3.10.post1 (master.cpp:68; real 0.3.9 exits on "5s").
func TestVersionFactsIssue18(t *testing.T) {
	for _, c := range []struct {
		v                   string
		batchLogged, haBack bool
		leaseDuration       bool
	}{
		{"0.3.10", true, false, false},
		{"0.3.10.post1", true, true, true},
		{"0.3.10.post2", false, true, true},
		{"0.3.11", false, true, true},
	} {
		p := MustProfile(c.v)
		k, _ := KnobByName("default_kv_lease_ttl")
		r, _ := k.RuleAt(p.Version)
		if p.TransferBatchFailLogged != c.batchLogged || p.HABackend != c.haBack || (r.Parse == ParseDuration) != c.leaseDuration {
			t.Errorf("%s: TransferBatchFailLogged %v HABackend %v duration lease %v, want %v %v %v",
				c.v, p.TransferBatchFailLogged, p.HABackend, r.Parse == ParseDuration, c.batchLogged, c.haBack, c.leaseDuration)
		}
	}
}

// IPv6 master addresses (issue 15, docs/REAL-FINDINGS.md §31): the client
// reaches "[::1]:port" / "::1:port" from 0.3.8, the master binds
// --rpc_address=::1 before 0.3.8 and from 0.3.10.post2 (real 0.3.4.post2 …
// 0.3.14 wheels; 0.3.10.post2 from dependencies.sh).
func TestIPv6MasterAddress(t *testing.T) {
	for _, c := range []struct {
		v            string
		dials, binds bool
	}{
		{"0.3.4.post2", false, true},
		{"0.3.7.post2", false, true},
		{"0.3.8.post1", true, false},
		{"0.3.10.post1", true, false},
		{"0.3.10.post2", true, true},
		{"0.3.11.post1", true, true},
		{"0.3.14", true, true},
	} {
		p := MustProfile(c.v)
		if p.MasterAddrIPv6 != c.dials || p.MasterBindsIPv6 != c.binds {
			t.Errorf("%s: MasterAddrIPv6 %v MasterBindsIPv6 %v, want %v %v", c.v, p.MasterAddrIPv6, p.MasterBindsIPv6, c.dials, c.binds)
		}
	}
}
