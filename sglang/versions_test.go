package sglang

import (
	"context"
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
)

func TestResolveAllocator(t *testing.T) {
	for _, tc := range []struct {
		release, builder string
		draft            bool
		want             string
	}{
		{"0.5.14", "", true, "default"},
		{"0.5.16", "", true, "mooncake"},
		{"0.5.17", "", true, "mooncake"},
		{"0.5.14", "", false, "mooncake"},
		{"0.5.14", BuilderDecodeOffload, false, "default"},
		{"0.5.16", BuilderDecodeOffload, false, "default"},
		{"0.5.17", BuilderDecodeOffload, false, "mooncake"},
		{"", BuilderDecodeOffload, false, "mooncake"},
		{"0.5.23", BuilderHiRadix, false, "mooncake"},
	} {
		spec := HostPoolSpec{AllocatorType: AllocatorSGLang, Builder: tc.builder}
		if got := ResolveAllocator(spec, tc.draft, tc.release); got != tc.want {
			t.Errorf("%s builder %q draft %v: %q, want %q", tc.release, tc.builder, tc.draft, got, tc.want)
		}
	}
	// A scenario's own allocator is never rewritten.
	if got := ResolveAllocator(HostPoolSpec{AllocatorType: "shm"}, true, "0.5.14"); got != "shm" {
		t.Errorf("shm: %q", got)
	}
	p := HostPoolSpec{AllocatorType: AllocatorSGLang, Builder: BuilderDecodeOffload, Draft: &HostPoolSpec{AllocatorType: AllocatorSGLang}}.ForRelease("0.5.14")
	if p.AllocatorType != "default" || p.Draft.AllocatorType != "default" {
		t.Errorf("ForRelease 0.5.14: %q, draft %q", p.AllocatorType, p.Draft.AllocatorType)
	}
}

func TestFollows(t *testing.T) {
	for v, want := range map[string]bool{"0.5.14": true, "0.5.16": true, "0.5.17": true, "0.5.23": true, "0.5.15": false, "0.5.9": false} {
		if got := Follows(v); got != want {
			t.Errorf("Follows(%s) = %v", v, got)
		}
	}
	if _, err := (Model{}).AtRelease("0.5.15"); err == nil {
		t.Error("AtRelease(0.5.15): no error")
	}
	s, err := Model{}.AtRelease("0.5.14")
	if err != nil || s.SGLangVersion() != "0.5.14" || !s.(Model).Pinned() || (Model{}).Pinned() {
		t.Errorf("AtRelease(0.5.14) = %v, %v", s, err)
	}
}

// The draft and decode-offload pools at the releases that built them with
// the default allocator, through Start.
func TestPoolAllocatorByRelease(t *testing.T) {
	env := map[string]string{"MOONCAKE_CLIENT": "127.0.0.1:50052", "MOONCAKE_STANDALONE_STORAGE": "1"}
	t.Run("draft at 0.5.14: default allocator, registered after the main pool", func(t *testing.T) {
		w := newFakeWorld()
		l := baseLaunch(w, env)
		l.SGLangVersion = "0.5.14"
		l.HostPool.Layout = "MLA"
		l.HostPool.Draft = &HostPoolSpec{Layout: "MLA", AllocatorType: AllocatorSGLang, Size: gib / 4}
		s, err := Start(context.Background(), l)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close(context.Background())
		eq(t, "allocs", w.proc.allocs, []allocCall{{engine.AllocMooncakeShm, gib}, {engine.AllocDefault, gib / 4}})
		eq(t, "registrations", len(w.proc.store.regCalls), 2)
	})
	t.Run("draft at 0.5.17: Mooncake allocator", func(t *testing.T) {
		w := newFakeWorld()
		l := baseLaunch(w, env)
		l.SGLangVersion = "0.5.17"
		l.HostPool.Layout = "MLA"
		l.HostPool.Draft = &HostPoolSpec{Layout: "MLA", AllocatorType: AllocatorSGLang, Size: gib / 4}
		s, err := Start(context.Background(), l)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close(context.Background())
		eq(t, "allocs", w.proc.allocs, []allocCall{{engine.AllocMooncakeShm, gib}, {engine.AllocMooncakeShm, gib / 4}})
	})
	t.Run("decode offload at 0.5.16: standalone refuses the default pool, 0.5.15+ text", func(t *testing.T) {
		w := newFakeWorld()
		l := baseLaunch(w, env)
		l.SGLangVersion = "0.5.16"
		l.HostPool = HostPoolSpec{Layout: "MLA", AllocatorType: AllocatorSGLang, Builder: BuilderDecodeOffload, Size: gib}
		_, err := Start(context.Background(), l)
		wantPyError(t, err, "RuntimeError", StandaloneAllocatorError)
		eq(t, "setup_dummy", len(w.proc.store.dummyCalls), 0)
	})
	t.Run("standalone check text at 0.5.14", func(t *testing.T) {
		w := newFakeWorld()
		l := baseLaunch(w, env)
		l.SGLangVersion = "0.5.14"
		l.HostPool.AllocatorType = "default"
		_, err := Start(context.Background(), l)
		wantPyError(t, err, "RuntimeError", StandaloneAllocatorErrorOld)
	})
}

// Before 0.5.17 tenant_id is never read and the prefix is
// extra_backend_tag alone.
func TestTenantAndPrefixBefore0517(t *testing.T) {
	env := map[string]string{"MOONCAKE_MASTER": "m:1", "MOONCAKE_TENANT_ID": "t1"}
	for _, tc := range []struct {
		release    string
		wantKwargs []engine.Kwarg
		wantLog    string
	}{
		{"0.5.16", nil, "INFO Using extra_backend_tag: tag"},
		{"0.5.17", []engine.Kwarg{{Name: "tenant_id", Value: "t1"}}, "INFO Using Mooncake config prefix: tag_org-m"},
	} {
		t.Run(tc.release, func(t *testing.T) {
			w := newFakeWorld()
			l := baseLaunch(w, env)
			l.SGLangVersion = tc.release
			l.StorageConfig.ModelName = "org/m"
			l.StorageConfig.ExtraConfig = map[string]any{"extra_backend_tag": "tag"}
			s, err := Start(context.Background(), l)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close(context.Background())
			eq(t, "kwargs", w.proc.store.setupCalls[0].Kwargs, tc.wantKwargs)
			logs := sglangLogs(l.Trace)
			found := false
			for _, x := range logs {
				found = found || x == tc.wantLog
			}
			if !found {
				t.Fatalf("no %q in %q", tc.wantLog, logs)
			}
		})
	}
}
