package sim

import (
	"context"
	"errors"
	"testing"

	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/te"
)

// A 4-key batch to a peer leaves 4 pooled connections: after the peer
// dies, 4 READs read End of file, the fifth connects anew (nil); writes
// never take the closed ones.
func TestTCPPoolClosedAfterPeerDied(t *testing.T) {
	p := tcpPool{}
	peer := &hostmem.Space{}
	ctx := master.WithBatch(context.Background(), []string{"a", "b", "c", "d"})
	p.keep(context.Background(), "n1:1", peer)
	p.keep(ctx, "n1:1", peer)
	if err := p.closed("n1:1", peer, false); err != nil {
		t.Fatalf("peer alive: %v", err)
	}
	if err := p.closed("n1:1", nil, true); err != nil {
		t.Fatalf("write: %v", err)
	}
	for i := range 4 {
		var tc *te.TransferClosed
		if err := p.closed("n1:1", nil, false); !errors.As(err, &tc) || tc.Err != te.ErrEOF || tc.Endpoint != "n1:1" {
			t.Fatalf("read %d: %v, want End of file on n1:1", i, err)
		}
	}
	if err := p.closed("n1:1", nil, false); err != nil {
		t.Fatalf("fifth read: %v, want a new connect (nil)", err)
	}
	// A restarted peer (another process at the endpoint) closed them too.
	p.keep(context.Background(), "n1:1", peer)
	if err := p.closed("n1:1", &hostmem.Space{}, false); err == nil {
		t.Fatal("restarted peer: nil, want End of file")
	}
	var none tcpPool
	none.keep(ctx, "n1:1", peer)
	if err := none.closed("n1:1", nil, false); err != nil {
		t.Fatalf("no pool: %v", err)
	}
}
