package metadata_test

import (
	"testing"

	"github.com/mooncake-faultlab/faultlab/models/metadata"
)

func TestEtcd(t *testing.T) {
	s := metadata.NewEtcd()
	if r := s.Put("mooncake/rpc_meta/h:1", []byte(`{"rpc_port":1}`)); r != 2 {
		t.Fatalf("first put revision %d, want 2", r)
	}
	// No duplicate check: a second rpc_meta Put overwrites (HTTP says 400).
	if r := s.Put("mooncake/rpc_meta/h:1", []byte(`{"rpc_port":2}`)); r != 3 {
		t.Fatalf("second put revision %d, want 3", r)
	}
	if v, ok := s.Get("mooncake/rpc_meta/h:1"); !ok || string(v) != `{"rpc_port":2}` {
		t.Fatalf("get = %q %v", v, ok)
	}
	if n := s.Delete("mooncake/rpc_meta/h:1"); n != 1 || s.Len() != 0 || s.Revision() != 4 {
		t.Fatalf("delete = %d, len %d, rev %d", n, s.Len(), s.Revision())
	}
	if n := s.Delete("mooncake/rpc_meta/h:1"); n != 0 || s.Revision() != 4 {
		t.Fatalf("delete of a missing key = %d, rev %d", n, s.Revision())
	}
	if _, ok := s.Get("missing"); ok {
		t.Fatal("missing key found")
	}
}
