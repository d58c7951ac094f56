package sglang

import (
	"context"
	"fmt"
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
)

func TestDirectLinker(t *testing.T) {
	env := map[string]string{"MOONCAKE_MASTER": "m:1", "MOONCAKE_PROTOCOL": "rdma", "MOONCAKE_DEVICE": "mlx5_0"}
	linker := func(w *fakeWorld, version string) Launch {
		l := baseLaunch(w, env)
		l.Backend = BackendDirectLinker
		l.DeviceKVPool = gib
		l.SGLangVersion = version
		return l
	}
	topology := "INFO Mooncake direct linker storage topology: rank_replicated=False, tp_rank=0/1, offload_owner=True, suffix=tp0_cp0_pp0"
	t.Run("GPU k and v registered after the store's init, no host pool", func(t *testing.T) {
		w := newFakeWorld()
		l := linker(w, LatestVersion)
		s, err := Start(context.Background(), l)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close(context.Background())
		eq(t, "allocs: the GPU pool only", w.proc.allocs, []allocCall{{engine.AllocCUDA, gib / 2}, {engine.AllocCUDA, gib / 2}})
		base := uint64(0x7f0000000000) // the fake process's first address
		eq(t, "register: k, v", w.proc.store.regCalls, []regCall{{base, gib / 2}, {base + uint64(gib/2) + 1<<20, gib / 2}})
		logs := sglangLogs(l.Trace)
		eq(t, "last log", logs[len(logs)-1], topology)
		_, err = s.BatchSetV1(context.Background(), []string{"p"}, []int64{0})
		if _, ok := engine.AsUnsupported(err); !ok {
			t.Fatalf("page I/O of the direct linker: err = %v, want *engine.Unsupported", err)
		}
	})
	t.Run("nonzero register_buffer: RuntimeError, no MooncakeBaseStore line", func(t *testing.T) {
		w := newFakeWorld()
		w.proc.store.regRets = []int{-600}
		l := linker(w, LatestVersion)
		s, err := Start(context.Background(), l)
		wantPyError(t, err, "RuntimeError", "Failed to register GPU KV buffer with Mooncake, error code: -600.")
		logs := sglangLogs(l.Trace)
		eq(t, "last log", logs[len(logs)-1], topology)
		eq(t, "register_buffer codes", s.Codes()[len(s.Codes())-1], MethodCodes{"register_buffer", []int{-600}})
		eq(t, "process closed", w.proc.closed, true)
	})
	t.Run("standalone storage: mem_pool=None has no allocator", func(t *testing.T) {
		w := newFakeWorld()
		l := linker(w, LatestVersion)
		l.Env = map[string]string{"MOONCAKE_MASTER": "m:1", "MOONCAKE_STANDALONE_STORAGE": "1", "MOONCAKE_CLIENT": "c:1"}
		_, err := Start(context.Background(), l)
		wantPyError(t, err, "AttributeError", "'NoneType' object has no attribute 'allocator'")
	})
	t.Run("before 0.5.19: no direct linker", func(t *testing.T) {
		_, err := Start(context.Background(), linker(newFakeWorld(), "0.5.17"))
		if u, ok := engine.AsUnsupported(err); !ok || fmt.Sprint(u) != "unsupported: sglang 0.5.17 has no MooncakeDirectLinker (from 0.5.19)" {
			t.Fatalf("err = %v, want *engine.Unsupported", err)
		}
	})
}
