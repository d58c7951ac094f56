package hostmem

import (
	"bytes"
	"testing"

	"github.com/mooncake-faultlab/faultlab/mooncake"
)

func TestContentIsSymbolic(t *testing.T) {
	var b Bytes
	b.WriteContent(4096, Stamp(256<<10, 0xabc))
	if c := b.ReadContent(4096, 256<<10); c.FP != 0xabc || c.Size != 256<<10 || c.Lit != nil {
		t.Fatalf("read back %+v", c)
	}
	// A prefix of a stamp is a different, derived content; unwritten ranges are zeros.
	if c := b.ReadContent(4096, 1024); c.FP == 0 || c.FP == 0xabc {
		t.Fatalf("prefix %+v", c)
	}
	if c := b.ReadContent(0, 64); c.FP != 0 || !bytes.Equal(c.Bytes(), make([]byte, 64)) {
		t.Fatalf("unwritten %+v", c)
	}
	// Literal writes keep their bytes; zeros are FP 0.
	b.Write(0, []byte("hello"))
	if got := b.Read(0, 5); string(got) != "hello" {
		t.Fatalf("literal %q", got)
	}
	if Literal(make([]byte, 8)).FP != 0 || Literal([]byte{1}).FP == 0 {
		t.Fatal("fingerprints of zeros and non-zeros")
	}
	// Zeros keep no copy, and still read back as zeros, whole or in part.
	if z := Literal(make([]byte, 8)); z.Lit != nil || z.Size != 8 || !bytes.Equal(z.Bytes(), make([]byte, 8)) || !bytes.Equal(z.slice(2, 3).Bytes(), make([]byte, 3)) {
		t.Fatalf("zeros %+v", z)
	}
	// Materialised stamps are deterministic and differ by fingerprint.
	if !bytes.Equal(Stamp(32, 7).Bytes(), Stamp(32, 7).Bytes()) || bytes.Equal(Stamp(32, 7).Bytes(), Stamp(32, 8).Bytes()) {
		t.Fatal("stamp bytes")
	}
}

// BenchmarkPageRoundTrip: a 256 KiB page written and read back through a
// space allocates no page bytes.
func BenchmarkPageRoundTrip(b *testing.B) {
	b.ReportAllocs()
	s := New(mustProfile(), 0)
	buf, _ := s.Alloc("default", 1<<30)
	for i := range b.N {
		c, _ := s.ReadContent(buf.Ptr, 256<<10)
		_ = s.WriteContent(buf.Ptr+uint64(i%1024)*(256<<10), c)
	}
}

func mustProfile() mooncake.Profile {
	p, err := mooncake.ProfileFor(mooncake.Latest)
	if err != nil {
		panic(err)
	}
	return p
}
