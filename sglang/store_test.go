package sglang

import (
	"cmp"
	"context"
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/trace"
)

const gib = int64(1) << 30

func baseLaunch(w *fakeWorld, env map[string]string) Launch {
	return Launch{
		World: w, Node: "tp0", Env: env,
		StorageConfig: StorageConfig{TPRank: 0, TPSize: 1, PPSize: 1},
		HostPool:      HostPoolSpec{Layout: "MHA", AllocatorType: "mooncake", Size: gib},
		Trace:         trace.New(nil),
		Seed:          1,
	}
}

// sglangLogs is "LEVEL text" of every sglang log line.
func sglangLogs(tr *trace.Trace) []string {
	var out []string
	for _, e := range tr.Events() {
		if e.Source == "sglang" && e.Kind == "log" {
			out = append(out, e.Level+" "+e.Text)
		}
	}
	return out
}

func wantPyError(t *testing.T, err error, class, msg string) {
	t.Helper()
	pe, ok := engine.AsPyError(err)
	if !ok {
		t.Fatalf("err = %v, want %s: %q", err, class, msg)
	}
	if pe.Class != class || pe.Message != msg {
		t.Fatalf("raised %s: %q\nwant   %s: %q", pe.Class, pe.Message, class, msg)
	}
}

func eq(t *testing.T, name string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got %#v\nwant %#v", name, got, want)
	}
}

var happyTail = []string{
	"INFO Mooncake store setup successfully.",
	"INFO Mooncake store warmup successfully.",
}

func TestStartHappyPathEnv(t *testing.T) {
	w := newFakeWorld()
	env := map[string]string{"MOONCAKE_MASTER": "10.0.0.1:50051", "MC_FORCE_TCP": "1"}
	l := baseLaunch(w, env)
	s, err := Start(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	st := w.proc.store
	eq(t, "process env", w.started, []map[string]string{env})
	eq(t, "setup calls", st.setupCalls, []engine.SetupArgs{{
		LocalHostname: "localhost", MetadataServer: "P2PHANDSHAKE", GlobalSegmentSize: 4 * gib,
		LocalBufferSize: 16 << 20, Protocol: "rdma", RDMADevices: "", MasterServerAddr: "10.0.0.1:50051",
		PassEngine: true,
	}})
	eq(t, "logs", sglangLogs(l.Trace), append([]string{"INFO " + BackendLog, "INFO Mooncake Configuration loaded from env successfully."}, happyTail...))
	eq(t, "allocs", w.proc.allocs, []allocCall{{engine.AllocMooncakeShm, gib}})
	eq(t, "register", st.regCalls, []regCall{{0x7f0000000000, gib / 2}, {0x7f0000000000 + uint64(gib/2), gib / 2}})
	eq(t, "codes", s.Codes(), []MethodCodes{
		{"setup", []int{0}}, {"put", []int{0}}, {"is_exist", []int{1}}, {"get", []int{4096}}, {"register_buffer", []int{0, 0}},
	})
}

func TestConfigSourcesAndErrors(t *testing.T) {
	const path = "/etc/mooncake.json"
	tests := []struct {
		name       string
		env        map[string]string
		files      map[string]string
		extra      map[string]any
		wantClass  string
		wantMsg    string
		wantLogs   []string // after the backend line
		wantSetup  *engine.SetupArgs
		wantStores int
	}{
		{
			name: "env missing addresses", env: map[string]string{},
			wantClass: "ValueError", wantMsg: "Failed to create storage backend: Either the environment variable 'MOONCAKE_MASTER' or 'MOONCAKE_CLIENT' is not set.",
			wantLogs:   []string{"ERROR Configuration loading failed: Either the environment variable 'MOONCAKE_MASTER' or 'MOONCAKE_CLIENT' is not set."},
			wantStores: 1,
		},
		{
			name: "env legacy LOCAL_HOSTNAME and custom values",
			env: map[string]string{"MOONCAKE_MASTER": "m:1", "LOCAL_HOSTNAME": "10.1.1.1", "MOONCAKE_PROTOCOL": "tcp",
				"MOONCAKE_TE_META_DATA_SERVER": "http://m:8080/metadata", "MOONCAKE_GLOBAL_SEGMENT_SIZE": " 8GB ", "MOONCAKE_DEVICE": "mlx5_0"},
			wantLogs:  append([]string{"INFO Mooncake Configuration loaded from env successfully."}, happyTail...),
			wantSetup: &engine.SetupArgs{LocalHostname: "10.1.1.1", MetadataServer: "http://m:8080/metadata", GlobalSegmentSize: 8 * gib, LocalBufferSize: 16 << 20, Protocol: "tcp", RDMADevices: "mlx5_0", MasterServerAddr: "m:1", PassEngine: true},
		},
		{
			name:      "MOONCAKE_LOCAL_HOSTNAME beats LOCAL_HOSTNAME",
			env:       map[string]string{"MOONCAKE_MASTER": "m:1", "LOCAL_HOSTNAME": "legacy", "MOONCAKE_LOCAL_HOSTNAME": "new", "MOONCAKE_GLOBAL_SEGMENT_SIZE": "1073741824"},
			wantLogs:  append([]string{"INFO Mooncake Configuration loaded from env successfully."}, happyTail...),
			wantSetup: &engine.SetupArgs{LocalHostname: "new", MetadataServer: "P2PHANDSHAKE", GlobalSegmentSize: gib, LocalBufferSize: 16 << 20, Protocol: "rdma", MasterServerAddr: "m:1", PassEngine: true},
		},
		{
			name: "segment 4G", env: map[string]string{"MOONCAKE_MASTER": "m:1", "MOONCAKE_GLOBAL_SEGMENT_SIZE": "4G"},
			wantClass: "ValueError", wantMsg: "Failed to create storage backend: invalid literal for int() with base 10: '4g'",
			wantLogs: []string{"ERROR Configuration loading failed: invalid literal for int() with base 10: '4g'"}, wantStores: 1,
		},
		{
			name: "segment gb without number", env: map[string]string{"MOONCAKE_MASTER": "m:1", "MOONCAKE_GLOBAL_SEGMENT_SIZE": " GB"},
			wantClass: "ValueError", wantMsg: "Failed to create storage backend: Invalid global_segment_size: missing number before 'gb'",
			wantLogs: []string{"ERROR Configuration loading failed: Invalid global_segment_size: missing number before 'gb'"}, wantStores: 1,
		},
		{
			name: "segment 4.5gb", env: map[string]string{"MOONCAKE_MASTER": "m:1", "MOONCAKE_GLOBAL_SEGMENT_SIZE": "4.5gb"},
			wantClass: "ValueError", wantMsg: "Failed to create storage backend: invalid literal for int() with base 10: '4.5'",
			wantLogs: []string{"ERROR Configuration loading failed: invalid literal for int() with base 10: '4.5'"}, wantStores: 1,
		},
		{
			name: "bad bool env warns and uses default",
			env:  map[string]string{"MOONCAKE_MASTER": "m:1", "MOONCAKE_STANDALONE_STORAGE": "Maybe", "MOONCAKE_MASTER_METRICS_PORT": "x9"},
			wantLogs: append([]string{
				`WARNING Invalid value for MOONCAKE_MASTER_METRICS_PORT: "x9" is not a valid integer value, using default "9003"`,
				`WARNING Invalid value for MOONCAKE_STANDALONE_STORAGE: "maybe" is not a valid boolean value, using default "False"`,
				"INFO Mooncake Configuration loaded from env successfully.",
			}, happyTail...),
			wantSetup: &engine.SetupArgs{LocalHostname: "localhost", MetadataServer: "P2PHANDSHAKE", GlobalSegmentSize: 4 * gib, LocalBufferSize: 16 << 20, Protocol: "rdma", MasterServerAddr: "m:1", PassEngine: true},
		},
		{
			name: "file missing", env: map[string]string{"SGLANG_HICACHE_MOONCAKE_CONFIG_PATH": path, "MOONCAKE_MASTER": "m:1"},
			wantClass: "RuntimeError", wantMsg: "Failed to load config from /etc/mooncake.json: [Errno 2] No such file or directory: '/etc/mooncake.json'",
			wantLogs: []string{"ERROR An error occurred while loading the configuration: Failed to load config from /etc/mooncake.json: [Errno 2] No such file or directory: '/etc/mooncake.json'"}, wantStores: 1,
		},
		{
			name: "file trailing comma", env: map[string]string{"SGLANG_HICACHE_MOONCAKE_CONFIG_PATH": path},
			files:     map[string]string{path: `{"master_server_address": "m:1",}`},
			wantClass: "RuntimeError", wantMsg: "Failed to load config from /etc/mooncake.json: Expecting property name enclosed in double quotes: line 1 column 33 (char 32)",
			wantLogs: []string{"ERROR An error occurred while loading the configuration: Failed to load config from /etc/mooncake.json: Expecting property name enclosed in double quotes: line 1 column 33 (char 32)"}, wantStores: 1,
		},
		{
			name: "file empty", env: map[string]string{"SGLANG_HICACHE_MOONCAKE_CONFIG_PATH": path},
			files:     map[string]string{path: ""},
			wantClass: "RuntimeError", wantMsg: "Failed to load config from /etc/mooncake.json: Expecting value: line 1 column 1 (char 0)",
			wantLogs: []string{"ERROR An error occurred while loading the configuration: Failed to load config from /etc/mooncake.json: Expecting value: line 1 column 1 (char 0)"}, wantStores: 1,
		},
		{
			name: "file without addresses", env: map[string]string{"SGLANG_HICACHE_MOONCAKE_CONFIG_PATH": path, "MOONCAKE_MASTER": "m:1"},
			files:     map[string]string{path: `{"protocol": "tcp"}`},
			wantClass: "ValueError", wantMsg: "Failed to create storage backend: Either master_server_address or client_server_address is required in config file",
			wantLogs: []string{"ERROR Configuration loading failed: Either master_server_address or client_server_address is required in config file"}, wantStores: 1,
		},
		{
			name: "file not a dict", env: map[string]string{"SGLANG_HICACHE_MOONCAKE_CONFIG_PATH": path},
			files:     map[string]string{path: `42`},
			wantClass: "TypeError", wantMsg: "argument of type 'int' is not iterable",
			wantLogs: []string{"ERROR An error occurred while loading the configuration: argument of type 'int' is not iterable"}, wantStores: 1,
		},
		{
			// Missing keys take the env var's default, not the env var.
			name:      "file beats env; defaults are env defaults",
			env:       map[string]string{"SGLANG_HICACHE_MOONCAKE_CONFIG_PATH": path, "MOONCAKE_MASTER": "env:1", "MOONCAKE_PROTOCOL": "tcp"},
			files:     map[string]string{path: "{\n  \"master_server_address\": \"file:1\",\n  \"global_segment_size\": 2147483648\n}\n"},
			wantLogs:  append([]string{"INFO Mooncake Configuration loaded from file successfully."}, happyTail...),
			wantSetup: &engine.SetupArgs{LocalHostname: "localhost", MetadataServer: "P2PHANDSHAKE", GlobalSegmentSize: 2 * gib, LocalBufferSize: 16 << 20, Protocol: "rdma", MasterServerAddr: "file:1", PassEngine: true},
		},
		{
			name:      "extra_config beats file and env",
			env:       map[string]string{"SGLANG_HICACHE_MOONCAKE_CONFIG_PATH": path, "MOONCAKE_MASTER": "env:1"},
			files:     map[string]string{path: `{"master_server_address": "file:1"}`},
			extra:     map[string]any{"master_server_address": "extra:1", "global_segment_size": "1gb", "protocol": "tcp", "local_hostname": "h"},
			wantLogs:  append([]string{"INFO Mooncake Configuration loaded from extra_config successfully."}, happyTail...),
			wantSetup: &engine.SetupArgs{LocalHostname: "h", MetadataServer: "P2PHANDSHAKE", GlobalSegmentSize: gib, LocalBufferSize: 16 << 20, Protocol: "tcp", MasterServerAddr: "extra:1", PassEngine: true},
		},
		{
			name:      "extra_config without a non-None address falls through",
			env:       map[string]string{"MOONCAKE_MASTER": "env:1"},
			extra:     map[string]any{"master_server_address": nil, "prefetch_timeout_base": 0.5},
			wantLogs:  append([]string{"INFO Mooncake Configuration loaded from env successfully."}, happyTail...),
			wantSetup: &engine.SetupArgs{LocalHostname: "localhost", MetadataServer: "P2PHANDSHAKE", GlobalSegmentSize: 4 * gib, LocalBufferSize: 16 << 20, Protocol: "rdma", MasterServerAddr: "env:1", PassEngine: true},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newFakeWorld()
			l := baseLaunch(w, tc.env)
			l.Files = tc.files
			l.StorageConfig.ExtraConfig = tc.extra
			s, err := Start(context.Background(), l)
			if tc.wantClass != "" {
				wantPyError(t, err, tc.wantClass, tc.wantMsg)
				if !w.proc.closed {
					t.Fatal("scheduler died but its process was not closed")
				}
				eq(t, "setup calls", len(w.proc.store.setupCalls), 0)
				eq(t, "MooncakeDistributedStore() calls", w.proc.newStores, tc.wantStores)
				evs := l.Trace.Events()
				last := evs[len(evs)-1]
				eq(t, "raise event", last.Kind+" "+last.Text, "raise "+tc.wantClass+": "+tc.wantMsg)
			} else if err != nil {
				t.Fatal(err)
			} else {
				defer s.Close(context.Background())
				eq(t, "setup", w.proc.store.setupCalls, []engine.SetupArgs{*tc.wantSetup})
			}
			eq(t, "logs", sglangLogs(l.Trace), append([]string{"INFO " + BackendLog}, tc.wantLogs...))
		})
	}
}

func TestSetupKwargsAndFallback(t *testing.T) {
	with := func(kv ...string) map[string]string {
		env := map[string]string{"MOONCAKE_MASTER": "m:1"}
		for i := 0; i < len(kv); i += 2 {
			env[kv[i]] = kv[i+1]
		}
		return env
	}
	prof := func(v string) *mooncake.Profile {
		p, err := mooncake.ProfileFor(v)
		if err != nil {
			t.Fatal(err)
		}
		return &p
	}
	pos8 := []any{"localhost", "P2PHANDSHAKE", 4 * gib, int64(16 << 20), "rdma", "", "m:1", nil}
	tests := []struct {
		name        string
		env         map[string]string
		profile     *mooncake.Profile
		setupRets   []int
		wantKwargs  [][]engine.Kwarg // per setup call
		wantClass   string
		wantMsg     string
		wantWarning string
		sglang      string // SGLang release; "" = OldestVersion (no per-rank offload dir)
	}{
		{
			name:       "SGLang 0.5.21+: ssd_offload_path gets the per-rank subdirectory",
			env:        with("MOONCAKE_ENABLE_SSD_OFFLOAD", "true", "MOONCAKE_OFFLOAD_FILE_STORAGE_PATH", "/ssd/"),
			profile:    prof("0.3.13.post1"),
			sglang:     LatestVersion,
			wantKwargs: [][]engine.Kwarg{{{Name: "enable_ssd_offload", Value: true}, {Name: "ssd_offload_path", Value: "/ssd/rank_0_0_0_0"}}},
		},
		{
			name:       "kwargs in insertion order on a binding that takes them",
			env:        with("MOONCAKE_ENABLE_SSD_OFFLOAD", "true", "MOONCAKE_OFFLOAD_FILE_STORAGE_PATH", "/ssd", "MOONCAKE_TENANT_ID", " t1 "),
			profile:    prof("0.3.13.post1"),
			wantKwargs: [][]engine.Kwarg{{{Name: "enable_ssd_offload", Value: true}, {Name: "ssd_offload_path", Value: "/ssd"}, {Name: "tenant_id", Value: "t1"}}},
		},
		{
			name:       "path is passed even with offload disabled; blank tenant is default",
			env:        with("MOONCAKE_OFFLOAD_FILE_STORAGE_PATH", "/ssd", "MOONCAKE_TENANT_ID", "   "),
			profile:    prof("0.3.13.post1"),
			wantKwargs: [][]engine.Kwarg{{{Name: "ssd_offload_path", Value: "/ssd"}}},
		},
		{
			name:        "old binding: one warning, retry without kwargs",
			env:         with("MOONCAKE_ENABLE_SSD_OFFLOAD", "1", "MOONCAKE_OFFLOAD_FILE_STORAGE_PATH", "/ssd"),
			profile:     prof("0.3.10"),
			wantKwargs:  [][]engine.Kwarg{{{Name: "enable_ssd_offload", Value: true}, {Name: "ssd_offload_path", Value: "/ssd"}}, nil},
			wantWarning: "WARNING The installed Mooncake version does not support the enable_ssd_offload, ssd_offload_path parameter(s) in setup(). Retrying without enable_ssd_offload, ssd_offload_path. Please upgrade Mooncake to enable SSD offload support.",
		},
		{
			name:       "tenant on a binding without tenant_id",
			env:        with("MOONCAKE_ENABLE_SSD_OFFLOAD", "1", "MOONCAKE_TENANT_ID", "t1"),
			profile:    prof("0.3.11"),
			wantKwargs: [][]engine.Kwarg{{{Name: "enable_ssd_offload", Value: true}, {Name: "tenant_id", Value: "t1"}}},
			wantClass:  "RuntimeError", wantMsg: TenantUnsupportedError,
		},
		{
			name:       "7-positional binding re-raises the kwarg-less TypeError",
			env:        with(),
			profile:    prof("0.3.6"),
			wantKwargs: [][]engine.Kwarg{nil},
			wantClass:  "TypeError", wantMsg: mooncake.SetupTypeError(*prof("0.3.6"), pos8, nil),
		},
		{
			name:        "7-positional binding with kwargs: drop, retry, re-raise",
			env:         with("MOONCAKE_ENABLE_SSD_OFFLOAD", "y"),
			profile:     prof("0.3.6"),
			wantKwargs:  [][]engine.Kwarg{{{Name: "enable_ssd_offload", Value: true}}, nil},
			wantWarning: "WARNING The installed Mooncake version does not support the enable_ssd_offload parameter(s) in setup(). Retrying without enable_ssd_offload. Please upgrade Mooncake to enable SSD offload support.",
			wantClass:   "TypeError", wantMsg: mooncake.SetupTypeError(*prof("0.3.6"), pos8, nil),
		},
		{
			name: "ret_code -1", env: with(), setupRets: []int{-1}, wantKwargs: [][]engine.Kwarg{nil},
			wantClass: "RuntimeError", wantMsg: "Failed to setup Mooncake store, error code: -1",
		},
		{
			name: "positive ret_code (<= 0.3.4.post2)", env: with(), setupRets: []int{1}, wantKwargs: [][]engine.Kwarg{nil},
			wantClass: "RuntimeError", wantMsg: "Failed to setup Mooncake store, error code: 1",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newFakeWorld()
			w.proc.store.profile = tc.profile
			w.proc.store.setupRets = tc.setupRets
			l := baseLaunch(w, tc.env)
			l.SGLangVersion = cmp.Or(tc.sglang, OldestVersion)
			s, err := Start(context.Background(), l)
			var got [][]engine.Kwarg
			for _, c := range w.proc.store.setupCalls {
				if !c.PassEngine {
					t.Fatal("setup called without the 8th positional (transfer_engine)")
				}
				got = append(got, c.Kwargs)
			}
			eq(t, "kwargs per setup call", got, tc.wantKwargs)
			logs := sglangLogs(l.Trace)
			if tc.wantWarning != "" {
				eq(t, "warning", logs[2], tc.wantWarning)
			}
			if tc.wantClass == "" {
				if err != nil {
					t.Fatal(err)
				}
				s.Close(context.Background())
				return
			}
			wantPyError(t, err, tc.wantClass, tc.wantMsg)
			eq(t, "last log", logs[len(logs)-1], "ERROR An error occurred while loading the configuration: "+tc.wantMsg)
		})
	}
}

func TestSetupNoneMaster(t *testing.T) {
	// Client-only config without standalone: setup(..., None, None) is a
	// pybind11 TypeError before any kwarg is involved.
	env := map[string]string{"MOONCAKE_CLIENT": "127.0.0.1:50052", "MOONCAKE_TENANT_ID": "t1"}
	w := newFakeWorld()
	l := baseLaunch(w, env)
	l.MooncakeVersion = "0.3.13.post1"
	s, err := Start(context.Background(), l)
	p, _ := mooncake.ProfileFor("0.3.13.post1")
	pos := []any{"localhost", "P2PHANDSHAKE", 4 * gib, int64(16 << 20), "rdma", "", nil, nil}
	// tenant_id appears in the TypeError text, so SGLang reports the tenant error.
	wantPyError(t, err, "RuntimeError", TenantUnsupportedError)
	eq(t, "engine setup calls", len(w.proc.store.setupCalls), 0)
	calls := s.Calls()
	eq(t, "observed", calls, []MooncakeCall{{Method: "setup", Raised: &engine.PyError{Class: "TypeError",
		Message: mooncake.SetupTypeError(p, pos, []mooncake.KV{{Name: "tenant_id", Value: "t1"}})}}})

	// Without tenant: the kwarg-less TypeError is re-raised verbatim.
	w = newFakeWorld()
	l = baseLaunch(w, map[string]string{"MOONCAKE_CLIENT": "127.0.0.1:50052"})
	l.MooncakeVersion = "0.3.13.post1"
	_, err = Start(context.Background(), l)
	wantPyError(t, err, "TypeError", mooncake.SetupTypeError(p, pos, nil))

	// No version: the harness says it cannot word the error.
	w = newFakeWorld()
	l = baseLaunch(w, map[string]string{"MOONCAKE_CLIENT": "127.0.0.1:50052"})
	_, err = Start(context.Background(), l)
	if _, ok := engine.AsUnsupported(err); !ok {
		t.Fatalf("err = %v, want *engine.Unsupported", err)
	}
}

func TestStandalone(t *testing.T) {
	env := map[string]string{"MOONCAKE_CLIENT": "127.0.0.1:50052", "MOONCAKE_STANDALONE_STORAGE": "1"}
	t.Run("default allocator fails before any setup call", func(t *testing.T) {
		w := newFakeWorld()
		l := baseLaunch(w, env)
		l.HostPool.AllocatorType = "default"
		s, err := Start(context.Background(), l)
		wantPyError(t, err, "RuntimeError", StandaloneAllocatorError)
		st := w.proc.store
		eq(t, "setup", len(st.setupCalls), 0)
		eq(t, "setup_dummy", len(st.dummyCalls), 0)
		eq(t, "calls", len(s.Calls()), 0)
		eq(t, "logs", sglangLogs(l.Trace), []string{
			"INFO " + BackendLog,
			"INFO Mooncake Configuration loaded from env successfully.",
			"ERROR An error occurred while loading the configuration: " + StandaloneAllocatorError,
		})
	})
	t.Run("ImportError falls back with a warning, then fails", func(t *testing.T) {
		w := newFakeWorld()
		w.proc.noShm = true
		l := baseLaunch(w, env)
		_, err := Start(context.Background(), l)
		wantPyError(t, err, "RuntimeError", StandaloneAllocatorError)
		eq(t, "allocs", w.proc.allocs, []allocCall{{engine.AllocMooncakeShm, gib}, {engine.AllocDefault, gib}})
		eq(t, "first log", sglangLogs(l.Trace)[0], "WARNING "+AllocatorFallbackWarning)
		eq(t, "setup_dummy", len(w.proc.store.dummyCalls), 0)
	})
	for _, tc := range []struct {
		layout string
		want   int64
	}{{"MHA", gib + gib/2}, {"MLA", gib}} {
		t.Run("setup_dummy size "+tc.layout, func(t *testing.T) {
			w := newFakeWorld()
			l := baseLaunch(w, env)
			l.HostPool.Layout = tc.layout
			s, err := Start(context.Background(), l)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close(context.Background())
			eq(t, "setup_dummy", w.proc.store.dummyCalls, []dummyCall{{tc.want, 16 << 20, "127.0.0.1:50052"}})
			eq(t, "setup", len(w.proc.store.setupCalls), 0)
		})
	}
	t.Run("setup_dummy size MHA on SGLang 0.5.17 (no get_hybrid_pool_buffer)", func(t *testing.T) {
		w := newFakeWorld()
		l := baseLaunch(w, env)
		l.SGLangVersion = OldestVersion
		s, err := Start(context.Background(), l)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close(context.Background())
		eq(t, "setup_dummy", w.proc.store.dummyCalls, []dummyCall{{gib, 16 << 20, "127.0.0.1:50052"}})
	})
	t.Run("standalone without client address", func(t *testing.T) {
		w := newFakeWorld()
		l := baseLaunch(w, map[string]string{"MOONCAKE_MASTER": "m:1", "MOONCAKE_STANDALONE_STORAGE": "true"})
		s, err := Start(context.Background(), l)
		msg := "setup_dummy(): incompatible function arguments. The following argument types are supported:\n" +
			"    1. (self: mooncake.store.MooncakeDistributedStore, mem_pool_size: int, local_buffer_size: int, server_address: str) -> int\n\n" +
			"Invoked with: <mooncake.store.MooncakeDistributedStore object at 0x7f00deadbeef>, 1610612736, 16777216, None"
		wantPyError(t, err, "TypeError", msg)
		eq(t, "engine setup_dummy calls", len(w.proc.store.dummyCalls), 0)
		eq(t, "observed", s.Calls()[0].Method+" "+s.Calls()[0].Raised.Class, "setup_dummy TypeError")
	})
	t.Run("setup_dummy failure", func(t *testing.T) {
		w := newFakeWorld()
		w.proc.store.dummyRet = -1
		_, err := Start(context.Background(), baseLaunch(w, env))
		wantPyError(t, err, "RuntimeError", "Failed to setup Mooncake store, error code: -1")
	})
}

func TestWarmup(t *testing.T) {
	env := map[string]string{"MOONCAKE_MASTER": "m:1"}
	t.Run("fails after 10 attempts, 10 s of sleeps", func(t *testing.T) {
		w := newFakeWorld()
		for i := 0; i < 10; i++ {
			w.proc.store.putRets = append(w.proc.store.putRets, -800)
		}
		l := baseLaunch(w, env)
		l.StorageConfig.TPRank, l.StorageConfig.TPSize = 3, 4
		_, err := Start(context.Background(), l)
		msg := "[TP3] Warmup put failed after 10 attempts, Transfer Engine might not be ready"
		wantPyError(t, err, "RuntimeError", msg)
		eq(t, "virtual time", w.clock.now, 10*time.Second)
		eq(t, "puts", len(w.proc.store.puts), 10)
		logs := sglangLogs(l.Trace)
		eq(t, "first warning", logs[3], "WARNING [TP3] Warmup put failed (attempt 1/10), ret=-800, retrying in 1.0s...")
		eq(t, "last warning", logs[12], "WARNING [TP3] Warmup put failed (attempt 10/10), ret=-800, retrying in 1.0s...")
		eq(t, "error", logs[13], "ERROR An error occurred while loading the configuration: "+msg)
		eq(t, "log count", len(logs), 14)
	})
	t.Run("succeeds on the third put", func(t *testing.T) {
		w := newFakeWorld()
		w.proc.store.putRets = []int{-1, -1, 0}
		l := baseLaunch(w, env)
		s, err := Start(context.Background(), l)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close(context.Background())
		eq(t, "sleeps", w.clock.sleeps, []time.Duration{time.Second, time.Second})
		eq(t, "put codes", s.Codes()[1], MethodCodes{"put", []int{-1, -1, 0}})
	})
	t.Run("is_exist != 1 is a bare AssertionError", func(t *testing.T) {
		w := newFakeWorld()
		zero := 0
		w.proc.store.isExistRet = &zero
		l := baseLaunch(w, env)
		_, err := Start(context.Background(), l)
		wantPyError(t, err, "AssertionError", "")
		logs := sglangLogs(l.Trace)
		eq(t, "error", logs[len(logs)-1], "ERROR An error occurred while loading the configuration: ")
	})
	t.Run("get mismatch is a bare AssertionError", func(t *testing.T) {
		w := newFakeWorld()
		w.proc.store.getValue = []byte{}
		_, err := Start(context.Background(), baseLaunch(w, env))
		wantPyError(t, err, "AssertionError", "")
	})
	t.Run("key is uuid4 hex from the seed", func(t *testing.T) {
		key := func(seed uint64, node string) string {
			w := newFakeWorld()
			l := baseLaunch(w, env)
			l.Seed, l.Node = seed, node
			s, err := Start(context.Background(), l)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close(context.Background())
			return w.proc.store.puts[0]
		}
		k := key(7, "tp0")
		if !regexp.MustCompile(`^sglang_mooncake_store_warmup_key[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$`).MatchString(k) {
			t.Fatalf("warmup key %q is not prefix+uuid4().hex", k)
		}
		eq(t, "same seed", key(7, "tp0"), k)
		if key(8, "tp0") == k || key(7, "tp1") == k {
			t.Fatal("warmup key does not depend on seed and node")
		}
	})
}

func TestRegisterMemPoolHost(t *testing.T) {
	env := map[string]string{"MOONCAKE_MASTER": "m:1"}
	t.Run("MHA v buffer fails", func(t *testing.T) {
		w := newFakeWorld()
		w.proc.store.regRets = []int{0, -600}
		l := baseLaunch(w, env)
		s, err := Start(context.Background(), l)
		// RuntimeError is not wrapped by the controller.
		wantPyError(t, err, "RuntimeError", "Failed to register buffer to Mooncake Store, error code: -600")
		base := uint64(0x7f0000000000)
		eq(t, "register", w.proc.store.regCalls, []regCall{{base, gib / 2}, {base + uint64(gib/2), gib / 2}})
		logs := sglangLogs(l.Trace)
		eq(t, "logs tail", logs[len(logs)-3:], []string{happyTail[0], happyTail[1], "ERROR Failed to register buffer, error code: -600"})
		eq(t, "codes", s.Codes()[4], MethodCodes{"register_buffer", []int{0, -600}})
	})
	t.Run("MLA registers once; draft after", func(t *testing.T) {
		w := newFakeWorld()
		w.proc.store.regRets = []int{0, -1}
		l := baseLaunch(w, env)
		l.HostPool = HostPoolSpec{Layout: "MLA", AllocatorType: "mooncake", Size: gib,
			Draft: &HostPoolSpec{Layout: "MHA", AllocatorType: "default", Size: gib / 4}}
		_, err := Start(context.Background(), l)
		wantPyError(t, err, "RuntimeError", "Failed to register buffer to Mooncake Store, error code: -1")
		eq(t, "allocs", w.proc.allocs, []allocCall{{engine.AllocMooncakeShm, gib}, {engine.AllocDefault, gib / 4}})
		draft := uint64(0x7f0000000000) + uint64(gib) + 1<<20
		eq(t, "register", w.proc.store.regCalls, []regCall{{0x7f0000000000, gib}, {draft, gib / 4}})
	})
	t.Run("SGLang 0.5.17: MHA registers the whole kv_buffer once", func(t *testing.T) {
		w := newFakeWorld()
		l := baseLaunch(w, env)
		l.SGLangVersion = OldestVersion
		s, err := Start(context.Background(), l)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close(context.Background())
		eq(t, "register", w.proc.store.regCalls, []regCall{{0x7f0000000000, gib}})
	})
	t.Run("size 0 is skipped", func(t *testing.T) {
		w := newFakeWorld()
		l := baseLaunch(w, env)
		l.HostPool.Size = 0
		s, err := Start(context.Background(), l)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close(context.Background())
		eq(t, "register", len(w.proc.store.regCalls), 0)
	})
}

func TestSegmentAndDevice(t *testing.T) {
	tests := []struct {
		name        string
		env         map[string]string
		tp, tpSize  int
		pp, ppSize  int
		wantSeg     int64
		wantDevice  string
		wantWarning string
		sglang      string
	}{
		{name: "tp4 pp2", env: map[string]string{"MOONCAKE_GLOBAL_SEGMENT_SIZE": "16gb"}, tpSize: 4, ppSize: 2, wantSeg: 2 * gib},
		{name: "tp4 pp2 on SGLang 0.5.17 (split by tp_size only)", env: map[string]string{"MOONCAKE_GLOBAL_SEGMENT_SIZE": "16gb"}, tpSize: 4, ppSize: 2, wantSeg: 4 * gib, sglang: OldestVersion},
		{name: "floor division", env: map[string]string{"MOONCAKE_GLOBAL_SEGMENT_SIZE": "7"}, tpSize: 2, ppSize: 1, wantSeg: 3},
		{name: "device JSON by tp_rank", env: map[string]string{"MOONCAKE_DEVICE": `{"0": "mlx5_0", "1": "mlx5_1"}`}, tp: 1, tpSize: 2, ppSize: 1, wantSeg: 2 * gib, wantDevice: "mlx5_1"},
		{name: "device JSON without the rank", env: map[string]string{"MOONCAKE_DEVICE": ` {"0": "mlx5_0"}`}, tp: 2, tpSize: 4, ppSize: 1, wantSeg: gib, wantDevice: ""},
		{name: "device bad JSON", env: map[string]string{"MOONCAKE_DEVICE": `{0: mlx5_0}`}, tpSize: 1, ppSize: 1, wantSeg: 4 * gib, wantDevice: "",
			wantWarning: "WARNING Failed to parse device_name as JSON: {0: mlx5_0}"},
		{name: "plain device list", env: map[string]string{"MOONCAKE_DEVICE": "mlx5_0,mlx5_1"}, tpSize: 1, ppSize: 1, wantSeg: 4 * gib, wantDevice: "mlx5_0,mlx5_1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"MOONCAKE_MASTER": "m:1"}
			for k, v := range tc.env {
				env[k] = v
			}
			w := newFakeWorld()
			l := baseLaunch(w, env)
			l.StorageConfig = StorageConfig{TPRank: tc.tp, TPSize: tc.tpSize, PPRank: tc.pp, PPSize: tc.ppSize}
			l.SGLangVersion = tc.sglang
			s, err := Start(context.Background(), l)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close(context.Background())
			c := w.proc.store.setupCalls[0]
			eq(t, "segment", c.GlobalSegmentSize, tc.wantSeg)
			eq(t, "device", c.RDMADevices, tc.wantDevice)
			if tc.wantWarning != "" {
				eq(t, "warning", sglangLogs(l.Trace)[2], tc.wantWarning)
			}
		})
	}
}

func TestCheckServerUnsupported(t *testing.T) {
	w := newFakeWorld()
	l := baseLaunch(w, map[string]string{"MOONCAKE_MASTER": "m:1", "MOONCAKE_CHECK_SERVER": "true"})
	_, err := Start(context.Background(), l)
	if _, ok := engine.AsUnsupported(err); !ok {
		t.Fatalf("err = %v, want *engine.Unsupported", err)
	}
	w = newFakeWorld()
	l = baseLaunch(w, map[string]string{"MOONCAKE_CLIENT": "c:1", "MOONCAKE_CHECK_SERVER": "true"})
	_, err = Start(context.Background(), l)
	wantPyError(t, err, "AttributeError", "'NoneType' object has no attribute 'split'")
}
