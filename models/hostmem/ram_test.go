package hostmem_test

import (
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

const (
	gib = int64(1) << 30
	tib = int64(1) << 40
)

// Whatever one host can map, the allocators' regions never overlap (1 TiB
// apart, a 1 TiB segment ran into the host pool's shm: issue 17), and two
// hosts' addresses never meet.
func TestArenasDoNotOverlap(t *testing.T) {
	p, _ := mooncake.ProfileFor("0.3.13.post1")
	spaces := []*hostmem.Space{hostmem.NewOnHost(p, 4<<20, 0).WithRAM(200 * tib), hostmem.NewOnHost(p, 4<<20, 1).WithRAM(200 * tib)}
	type span struct{ lo, hi uint64 }
	var all []span
	for _, s := range spaces {
		for _, a := range []struct {
			alloc string
			size  int64
		}{
			{"segment", tib}, {"segment", 16 << 20}, {engine.AllocMooncakeShm, 100 * tib}, {engine.AllocMooncakeShm, gib},
			{engine.AllocDefault, 100 * tib}, {engine.AllocDefault, gib}, {engine.AllocHugepage, 2 << 20},
		} {
			b, err := s.Alloc(a.alloc, a.size)
			if err != nil {
				t.Fatalf("%s %d: %v", a.alloc, a.size, err)
			}
			all = append(all, span{b.Ptr, b.Ptr + uint64(b.Size)})
		}
		shm, _ := s.FindShm(all[len(all)-5].lo)
		m := s.MapShm(*shm) // the real client's mapping of the dummy's memfd
		all = append(all, span{m, m + uint64(shm.Size)})
	}
	for i, a := range all {
		for j, b := range all[:i] {
			if a.lo < b.hi && b.lo < a.hi {
				t.Fatalf("region %d [%#x, %#x) overlaps region %d [%#x, %#x)", i, a.lo, a.hi, j, b.lo, b.hi)
			}
		}
	}
	if all[5].lo != 0x7f0000000000+uint64(100*tib)+4096 { // the default arena of host 0 keeps its base
		t.Fatalf("second default allocation at %#x", all[5].lo)
	}
}

// A host has RAM (default 64 GiB): beyond it the default allocator's
// torch.empty raises as real torch does, MooncakeHostMemAllocator's
// MAP_POPULATE gets the process OOM-killed, and past the address space
// its mmap fails.
func TestHostRAM(t *testing.T) {
	p, _ := mooncake.ProfileFor("0.3.13.post1")
	s := hostmem.New(p, 0)
	if s.RAM() != 64*gib {
		t.Fatalf("default RAM %d", s.RAM())
	}
	if _, err := s.Alloc(engine.AllocDefault, 64*gib); err != nil {
		t.Fatalf("64 GiB on 64 GiB: %v", err)
	}
	for _, c := range []struct {
		alloc string
		size  int64
		want  string
	}{
		{engine.AllocDefault, 64*gib + 1, "RuntimeError: [enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate 68719476737 bytes. Error code 12 (Cannot allocate memory)"},
		{engine.AllocMooncakeShm, 65 * gib, "process died (SIGKILL): Out of memory: Killed process (MooncakeHostMemAllocator.alloc(69793218560): memfd MAP_POPULATE on a host with 68719476736 bytes of RAM)"},
		{engine.AllocMooncakeShm, 16384 * tib, "RuntimeError: Failed to map shared memory: Cannot allocate memory"},
	} {
		_, err := s.Alloc(c.alloc, c.size)
		got := hostmem.PyAllocError(c.alloc, err)
		if got == nil || got.Error() != c.want {
			if pe, ok := engine.AsPyError(got); ok {
				t.Errorf("%s %d: %s: %s, want %s", c.alloc, c.size, pe.Class, pe.Message, c.want)
				continue
			}
			t.Errorf("%s %d: %v, want %s", c.alloc, c.size, got, c.want)
		}
	}
	if _, err := hostmem.New(p, 0).WithRAM(16*gib).Alloc(engine.AllocDefault, 17*gib); err == nil {
		t.Fatal("17 GiB on a 16 GiB host")
	}
}
