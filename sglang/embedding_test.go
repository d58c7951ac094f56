package sglang

import (
	"context"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/trace"
)

func TestDraftSharesMainOverlaps(t *testing.T) {
	w := newFakeWorld()
	// What real Mooncake answers (docs/REAL-FINDINGS.md): the halves register,
	// the whole allocation over them is an overlapped region.
	w.proc.store.regRets = []int{0, 0, -600}
	l := baseLaunch(w, map[string]string{"MOONCAKE_MASTER": "m:1"})
	l.HostPool.Draft = &HostPoolSpec{SharesMain: true, Layout: "MLA", Size: 7}
	s, err := Start(context.Background(), l)
	wantPyError(t, err, "RuntimeError", "Failed to register buffer to Mooncake Store, error code: -600")
	base := uint64(0x7f0000000000)
	eq(t, "allocs (the draft allocates nothing)", w.proc.allocs, []allocCall{{engine.AllocMooncakeShm, gib}})
	eq(t, "register: k, v, then the draft kv_buffer = main kv_buffer", w.proc.store.regCalls,
		[]regCall{{base, gib / 2}, {base + uint64(gib/2), gib / 2}, {base, gib}})
	logs := sglangLogs(l.Trace)
	eq(t, "last log", logs[len(logs)-1], "ERROR Failed to register buffer, error code: -600")
	eq(t, "codes", s.Codes()[4], MethodCodes{"register_buffer", []int{0, 0, -600}})
	eq(t, "process closed", w.proc.closed, true)
}

func TestEmbeddingBackend(t *testing.T) {
	env := map[string]string{"MOONCAKE_MASTER": "m:1", "MOONCAKE_PROTOCOL": "tcp", "MOONCAKE_DEVICE": `{"0": "mlx5_0"}`, "MOONCAKE_GLOBAL_SEGMENT_SIZE": "8gb"}
	embed := func(w *fakeWorld, env map[string]string) Launch {
		l := baseLaunch(w, env)
		l.Backend = BackendEmbedding
		l.StorageConfig = StorageConfig{TPSize: 4, PPSize: 1, ExtraConfig: map[string]any{"master_server_address": "ignored:1"}}
		l.HostPool = HostPoolSpec{Layout: "MHA", AllocatorType: "mooncake", Size: gib / 4}
		l.SGLangVersion = OldestVersion // no EmbeddingStoreFactory line (tested below)
		return l
	}
	t.Run("happy: seven positionals, no split, no JSON mapping, no warmup", func(t *testing.T) {
		w := newFakeWorld()
		l := embed(w, env)
		s, err := Start(context.Background(), l)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close(context.Background())
		eq(t, "setup", w.proc.store.setupCalls, []engine.SetupArgs{{
			LocalHostname: "localhost", MetadataServer: "P2PHANDSHAKE", GlobalSegmentSize: 8 * gib,
			LocalBufferSize: 16 << 20, Protocol: "tcp", RDMADevices: `{"0": "mlx5_0"}`, MasterServerAddr: "m:1",
		}})
		eq(t, "logs", sglangLogs(l.Trace), []string{"INFO Mooncake Configuration loaded from env successfully.", "INFO " + EmbeddingInitLog})
		eq(t, "allocs: pinned torch memory", w.proc.allocs, []allocCall{{engine.AllocDefault, gib / 4}})
		eq(t, "register: cpu_pool once", w.proc.store.regCalls, []regCall{{0x7f0000000000, gib / 4}})
		eq(t, "codes", s.Codes(), []MethodCodes{{"setup", []int{0}}, {"register_buffer", []int{0}}})
		_, err = s.BatchSetV1(context.Background(), []string{"p"}, []int64{0})
		if _, ok := engine.AsUnsupported(err); !ok {
			t.Fatalf("page I/O on the embedding store: err = %v, want *engine.Unsupported", err)
		}
	})
	t.Run("nonzero setup code", func(t *testing.T) {
		for _, code := range []int{1, -600, -1} {
			w := newFakeWorld()
			w.proc.store.setupRets = []int{code}
			l := embed(w, env)
			s, err := Start(context.Background(), l)
			wantPyError(t, err, "RuntimeError", "Failed to setup Mooncake Embedding Store: "+map[int]string{1: "1", -600: "-600", -1: "-1"}[code])
			// No try/except in MooncakeEmbeddingStore.__init__: no error line.
			eq(t, "logs", sglangLogs(l.Trace), []string{"INFO Mooncake Configuration loaded from env successfully."})
			eq(t, "codes", s.Codes(), []MethodCodes{{"setup", []int{code}}})
			eq(t, "allocs", len(w.proc.allocs), 0)
			eq(t, "closed", w.proc.closed, true)
		}
	})
	t.Run("ValueError is not wrapped", func(t *testing.T) {
		w := newFakeWorld()
		l := embed(w, map[string]string{})
		_, err := Start(context.Background(), l)
		wantPyError(t, err, "ValueError", "Either the environment variable 'MOONCAKE_MASTER' or 'MOONCAKE_CLIENT' is not set.")
		eq(t, "logs", sglangLogs(l.Trace), []string(nil))
	})
	t.Run("0.3.4 binding accepts the seven-positional call", func(t *testing.T) {
		prof, err := mooncake.ProfileFor("0.3.4")
		if err != nil {
			t.Fatal(err)
		}
		w := newFakeWorld()
		w.proc.store.profile = &prof
		w.proc.store.setupRets = []int{1}
		l := embed(w, env)
		l.MooncakeVersion = "0.3.4"
		_, err = Start(context.Background(), l)
		wantPyError(t, err, "RuntimeError", "Failed to setup Mooncake Embedding Store: 1")
	})
	t.Run("non-str device_name: pybind11 TypeError without the 8th None", func(t *testing.T) {
		w := newFakeWorld()
		l := embed(w, map[string]string{"SGLANG_HICACHE_MOONCAKE_CONFIG_PATH": "/c.json"})
		l.Files = map[string]string{"/c.json": `{"master_server_address": "m:1", "device_name": 5, "protocol": "tcp"}`}
		l.MooncakeVersion = "0.3.13.post1"
		_, err := Start(context.Background(), l)
		pe, ok := engine.AsPyError(err)
		if !ok || pe.Class != "TypeError" {
			t.Fatalf("err = %v, want TypeError", err)
		}
		const tail = ", 'localhost', 'P2PHANDSHAKE', 4294967296, 16777216, 'tcp', 5, 'm:1'"
		if !strings.HasSuffix(pe.Message, tail) {
			t.Fatalf("TypeError message %q\ndoes not end with %q", pe.Message, tail)
		}
		eq(t, "setup reached the binding", len(w.proc.store.setupCalls), 0)
	})
}

func TestProcessDiedPropagatesUnchanged(t *testing.T) {
	for _, backend := range []string{"", BackendEmbedding} {
		w := newFakeWorld()
		died := &engine.ProcessDied{Signal: "SIGSEGV", Reason: "Segmentation fault in store.so"}
		w.proc.store.setupErr = died
		l := baseLaunch(w, map[string]string{"MOONCAKE_MASTER": "m:1"})
		l.Backend = backend
		s, err := Start(context.Background(), l)
		if err != error(died) {
			t.Fatalf("backend %q: err = %#v, want the engine's *ProcessDied unchanged", backend, err)
		}
		if s == nil {
			t.Fatalf("backend %q: store is nil", backend)
		}
		eq(t, "codes (the call that died returned nothing)", s.Codes(), []MethodCodes(nil))
		for _, line := range sglangLogs(l.Trace) {
			if strings.HasPrefix(line, "ERROR") {
				t.Fatalf("backend %q: Python logged %q after a process death", backend, line)
			}
		}
		eq(t, "process closed", w.proc.closed, true)
		var died1 []string
		for _, e := range l.Trace.Events() {
			if e.Source == "sglang" && e.Kind == "died" {
				died1 = append(died1, e.Text)
			}
		}
		eq(t, "trace", died1, []string{"SIGSEGV: Segmentation fault in store.so"})
	}
}

func TestUnknownBackend(t *testing.T) {
	w := newFakeWorld()
	l := baseLaunch(w, map[string]string{"MOONCAKE_MASTER": "m:1"})
	l.Backend = "vector"
	l.Trace = trace.New(nil)
	_, err := Start(context.Background(), l)
	if err == nil || !strings.Contains(err.Error(), `Launch.Backend "vector"`) {
		t.Fatalf("err = %v", err)
	}
	if _, ok := engine.AsPyError(err); ok {
		t.Fatal("a harness error must not look like a Python exception")
	}
}

func TestEmbeddingFactoryAndTenant(t *testing.T) {
	env := map[string]string{"MOONCAKE_MASTER": "m:1", "MOONCAKE_TENANT_ID": "team-a"}
	t.Run("0.5.19+: the factory's line first; tenant_id passed", func(t *testing.T) {
		w := newFakeWorld()
		l := baseLaunch(w, env)
		l.Backend = BackendEmbedding
		s, err := Start(context.Background(), l)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close(context.Background())
		eq(t, "first log", sglangLogs(l.Trace)[0], "INFO "+EmbeddingFactoryLog)
		eq(t, "kwargs", w.proc.store.setupCalls[0].Kwargs, []engine.Kwarg{{Name: "tenant_id", Value: "team-a"}})
	})
	t.Run("a binding without tenant_id: the tenant RuntimeError", func(t *testing.T) {
		w := newFakeWorld()
		p, err := mooncake.ProfileFor("0.3.11.post1")
		if err != nil {
			t.Fatal(err)
		}
		w.proc.store.profile = &p
		l := baseLaunch(w, env)
		l.Backend = BackendEmbedding
		_, err = Start(context.Background(), l)
		wantPyError(t, err, "RuntimeError", TenantUnsupportedError)
	})
}
