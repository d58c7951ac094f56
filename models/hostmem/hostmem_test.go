package hostmem_test

import (
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

func TestAllocators(t *testing.T) {
	p, _ := mooncake.ProfileFor("0.3.13.post1")
	s := hostmem.New(p, 4<<20)
	a, err := s.Alloc(engine.AllocDefault, 100)
	if err != nil || a.Ptr != 0x7f0000000000 {
		t.Fatalf("default: %+v %v", a, err)
	}
	b, _ := s.Alloc(engine.AllocDefault, 100)
	if b.Ptr != 0x7f0000002000 { // 4 KiB rounding + guard page
		t.Fatalf("second default at %#x", b.Ptr)
	}
	if _, err := s.Alloc(engine.AllocHugepage, 3<<20); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Alloc(engine.AllocHugepage, 1); err == nil {
		t.Fatal("hugepage pool of 4 MiB gave 4 MiB + 2 MiB")
	}
	sh, err := s.Alloc(engine.AllocMooncakeShm, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	shm, ok := s.FindShm(sh.Ptr + 10)
	if !ok || shm.Base != sh.Ptr || shm.Size != 1<<20 {
		t.Fatalf("FindShm: %+v %v", shm, ok)
	}
	if _, ok := s.FindShm(a.Ptr); ok {
		t.Fatal("default memory is not shm")
	}
	// Another process maps the same fd: same bytes, another address.
	other := hostmem.New(p, 0)
	real := other.MapShm(*shm)
	if err := s.Write(sh.Ptr+8, []byte("hi")); err != nil {
		t.Fatal(err)
	}
	got, _ := other.Read(real+8, 2)
	if string(got) != "hi" || real == sh.Ptr {
		t.Fatalf("mapped read %q at %#x", got, real)
	}
}

func TestImportErrorBefore038(t *testing.T) {
	p, _ := mooncake.ProfileFor("0.3.7.post2")
	_, err := hostmem.New(p, 0).Alloc(engine.AllocMooncakeShm, 1)
	pe, ok := engine.AsPyError(err)
	if !ok || pe.Class != "ImportError" || pe.Message != hostmem.ImportErrorText {
		t.Fatalf("err = %v", err)
	}
}

// GPU memory: only on a node with a GPU, in each host's device window,
// known as device memory by its address alone.
func TestGPUMemory(t *testing.T) {
	p := mooncake.MustProfile("0.3.13.post1")
	if _, err := hostmem.New(p, 0).Alloc(engine.AllocCUDA, 1<<20); err == nil || err.Error() != "alloc cuda: the node has no GPU (topology nodes[].gpu)" {
		t.Fatalf("cuda without a GPU: %v", err)
	}
	for host, want := range []uint64{0x10000000000, 0x20000000000} {
		s := hostmem.NewOnHost(p, 0, host).WithGPU(true)
		g, err := s.Alloc(engine.AllocCUDA, 1<<30)
		if err != nil || g.Ptr != want {
			t.Fatalf("host %d: %+v %v, want at %#x", host, g, err, want)
		}
		h, _ := s.Alloc(engine.AllocDefault, 1<<20)
		if !hostmem.IsDevice(g.Ptr) || !hostmem.IsDevice(g.Ptr+uint64(g.Size)-1) || hostmem.IsDevice(h.Ptr) {
			t.Fatalf("host %d: IsDevice(%#x) IsDevice(%#x)", host, g.Ptr, h.Ptr)
		}
	}
}
