package sglang

import (
	"context"
	"testing"

	"github.com/mooncake-faultlab/faultlab/mooncake"
)

func startIO(t *testing.T, mla bool, model string, pp int) (*MooncakeStore, *fakeWorld) {
	t.Helper()
	w := newFakeWorld()
	l := baseLaunch(w, map[string]string{"MOONCAKE_MASTER": "m:1"})
	l.StorageConfig = StorageConfig{TPRank: 1, TPSize: 2, PPRank: 0, PPSize: pp, IsMLAModel: mla, ModelName: model}
	l.HostPool = HostPoolSpec{Layout: "MHA", AllocatorType: "mooncake", Size: 1 << 20, PageSize: 4, PageBytes: 4096}
	if mla {
		l.HostPool.Layout = "MLA"
	}
	s, err := Start(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return s, w
}

func TestBatchIOMHA(t *testing.T) {
	ctx := context.Background()
	s, w := startIO(t, false, "Qwen/Qwen3-8B", 1)
	st := w.proc.store
	st.batchCalls = nil
	// Page 1's v component already exists: it is not re-put and counts as 0.
	st.objects["Qwen-Qwen3-8B_h1_1_v"] = []byte{1}
	st.putFail = map[string]int{"Qwen-Qwen3-8B_h2_1_k": int(mooncake.NO_AVAILABLE_HANDLE)}
	got, err := s.BatchSetV1(ctx, []string{"h0", "h1", "h2"}, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "set pages", got, []bool{true, true, false})
	eq(t, "engine calls", st.batchCalls, []string{
		"batch_is_exist[Qwen-Qwen3-8B_h0_1_k Qwen-Qwen3-8B_h0_1_v Qwen-Qwen3-8B_h1_1_k Qwen-Qwen3-8B_h1_1_v Qwen-Qwen3-8B_h2_1_k Qwen-Qwen3-8B_h2_1_v]",
		"batch_put_from[Qwen-Qwen3-8B_h0_1_k Qwen-Qwen3-8B_h0_1_v Qwen-Qwen3-8B_h1_1_k Qwen-Qwen3-8B_h2_1_k Qwen-Qwen3-8B_h2_1_v]",
	})
	n, err := s.BatchExists(ctx, []string{"h0", "h1", "h2"})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "exists prefix", n, 2)
	st.getFail = map[string]int{"Qwen-Qwen3-8B_h1_1_v": 0} // 0 bytes read is a failure
	g, err := s.BatchGetV1(ctx, []string{"h0", "h1"}, []int64{0, 1, 2, 3, 4, 5, 6, 7})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "get pages", g, []bool{true, false})
	codes := s.Codes()
	eq(t, "exist codes", codes[len(codes)-3], MethodCodes{"batch_is_exist", []int{0, 0, 0, 1, 0, 0, 1, 1, 1, 1, 0, 1}})
	eq(t, "put codes", codes[len(codes)-2], MethodCodes{"batch_put_from", []int{0, 0, 0, -200, 0}})
	eq(t, "get codes", codes[len(codes)-1], MethodCodes{"batch_get_into", []int{4096, 4096, 4096, 0}})
	_, err = s.BatchGetV1(ctx, []string{"h0"}, []int64{0, 1})
	wantPyError(t, err, "AssertionError", "")
}

func TestBatchIOMLAKeysAndPointers(t *testing.T) {
	ctx := context.Background()
	s, w := startIO(t, true, "", 1)
	st := w.proc.store
	st.batchCalls = nil
	if _, err := s.BatchExists(ctx, []string{"p"}); err != nil {
		t.Fatal(err)
	}
	eq(t, "MLA key", st.batchCalls, []string{"batch_is_exist[p__k]"})

	s2, w2 := startIO(t, true, "", 2)
	w2.proc.store.batchCalls = nil
	if _, err := s2.BatchExists(ctx, []string{"p"}); err != nil {
		t.Fatal(err)
	}
	eq(t, "MLA key with PP", w2.proc.store.batchCalls, []string{"batch_is_exist[p_0_k]"})

	keys, ptrs, sizes, mult, err := s.pageMeta([]string{"a", "b"}, []int64{8, 9, 10, 11, 4, 5, 6, 7})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "keys", keys, []string{"a__k", "b__k"})
	eq(t, "ptrs", ptrs, []uint64{0x7f0000000000 + 8*1024, 0x7f0000000000 + 4*1024})
	eq(t, "sizes", sizes, []int64{4096, 4096})
	eq(t, "mult", mult, 1)
}

func TestIOAfterFailedStart(t *testing.T) {
	w := newFakeWorld()
	w.proc.store.setupRets = []int{-1}
	s, err := Start(context.Background(), baseLaunch(w, map[string]string{"MOONCAKE_MASTER": "m:1"}))
	if err == nil {
		t.Fatal("want setup failure")
	}
	if _, err := s.BatchExists(context.Background(), []string{"x"}); err != errNotStarted {
		t.Fatalf("err = %v, want errNotStarted", err)
	}
	eq(t, "codes", s.Codes(), []MethodCodes{{"setup", []int{-1}}})
}
