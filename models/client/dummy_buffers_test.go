package client_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/client"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/rng"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// standaloneDirect reaches one mooncake_client model with no transport.
type standaloneDirect struct{ sa *client.Standalone }

func (d standaloneDirect) RealClient(string, client.Timeouts) client.RealClientService { return d.sa }

// dummyWorld is a mooncake_client model and a dummy client in a process of
// its own (its own address space), each logging into its own list.
func dummyWorld(t *testing.T, version string) (dummy *client.DummyClient, mem *hostmem.Space, saLogs, dummyLogs *[]string) {
	t.Helper()
	ctx := context.Background()
	clock := &manualClock{}
	p, err := mooncake.ProfileFor(version)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := master.ConfigFor(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := master.New(cfg, clock, nil, rng.Stream(1, "m"))
	saLogs, dummyLogs = &[]string{}, &[]string{}
	sa, err := client.StartStandalone(ctx, deps(t, version, clock, direct{m}, saLogs), client.StandaloneSpec{
		Host: "127.0.0.1", Port: "50052", MetadataServer: "P2PHANDSHAKE", MasterServerAddress: "m:1",
		Protocol: "tcp", GlobalSegmentSize: 16 << 20,
	})
	if err != nil {
		t.Fatalf("mooncake_client: %v; logs %q", err, *saLogs)
	}
	d := deps(t, version, clock, direct{m}, dummyLogs)
	d.Clients = standaloneDirect{sa}
	dummy = client.NewDummyClient(d, "c1")
	if rc, err := dummy.SetupDummy(ctx, 64<<20, 1<<20, "127.0.0.1:50052"); rc != 0 || err != nil {
		t.Fatalf("setup_dummy = %d, %v; logs %q %q", rc, err, *saLogs, *dummyLogs)
	}
	return dummy, d.Mem, saLogs, dummyLogs
}

// Zero-copy buffers outside the shm mooncake_client mapped for a dummy
// (real 0.3.9, 0.3.12.post1, 0.3.13.post1, 0.3.14: standalone/buffer-outside-shm,
// regressions/standalone-host-buffer-*): the whole batch is INVALID_PARAMS
// and mooncake_client logs the release's line once per batch; 0.3.14's
// dummy moves a registered host buffer itself and fails an unregistered
// one without a line.
func TestDummyBufferOutsideMappedShm(t *testing.T) {
	const size = 64 << 10
	for _, c := range []struct {
		version string
		// getLine, putLine: mooncake_client's lines for a read, then a
		// write, of unregistered shm (%d: the buffer's address).
		getLine, putLine string
		hostRegister     int
		hostGet          int   // batch_get_into into registered host memory
		hostPut          []int // batch_put_from from registered host memory
		hostLines        bool  // an unregistered host buffer reaches mooncake_client
	}{
		{"0.3.9", "Dummy buffer at %d (size 65536) not found in any mapped shared memory for client c1",
			"Dummy buffer at %d not found in any mapped shared memory", -1, 0, nil, true},
		{"0.3.12.post1", "Dummy buffer at %d (size 65536) not found in any mapped shared memory, client_id=c1",
			"Dummy buffer at %d (size 65536) not found in any mapped shared memory, client_id=c1", -1, 0, nil, true},
		{"0.3.14", "Dummy buffer at %d (size 65536) not found in any mapped shared memory, client_id=c1",
			"Dummy buffer at %d (size 65536) not found in any mapped shared memory, client_id=c1", 0, size, []int{0, 0}, false},
	} {
		t.Run(c.version, func(t *testing.T) {
			ctx := context.Background()
			dummy, mem, saLogs, _ := dummyWorld(t, c.version)
			if rc, _ := dummy.Put(ctx, "k0", make([]byte, size)); rc != 0 {
				t.Fatalf("put = %d", rc)
			}
			// Mooncake's shm, never registered: mooncake_client never mapped it.
			shm, err := mem.Alloc(engine.AllocMooncakeShm, 2*size)
			if err != nil {
				t.Fatal(err)
			}
			*saLogs = nil
			got, err := dummy.BatchGetInto(ctx, []string{"k0"}, []uint64{shm.Ptr}, []int64{size})
			if err != nil || !slices.Equal(got, []int{-600}) {
				t.Fatalf("batch_get_into = %v, %v; want [-600]", got, err)
			}
			got, err = dummy.BatchPutFrom(ctx, []string{"k1", "k2"}, []uint64{shm.Ptr, shm.Ptr + size}, []int64{size, size})
			if err != nil || !slices.Equal(got, []int{-600, -600}) {
				t.Fatalf("batch_put_from = %v, %v; want [-600 -600]", got, err)
			}
			want := []string{fmt.Sprintf(c.getLine, shm.Ptr), fmt.Sprintf(c.putLine, shm.Ptr)}
			if !slices.Equal(*saLogs, want) {
				t.Fatalf("mooncake_client logged %q, want %q", *saLogs, want)
			}

			// Host memory of the process's own.
			host, err := mem.Alloc(engine.AllocDefault, 2*size)
			if err != nil {
				t.Fatal(err)
			}
			*saLogs = nil
			got, err = dummy.BatchGetInto(ctx, []string{"k0"}, []uint64{host.Ptr}, []int64{size})
			if err != nil || !slices.Equal(got, []int{-600}) {
				t.Fatalf("unregistered host batch_get_into = %v, %v; want [-600]", got, err)
			}
			if c.hostLines != (len(*saLogs) == 1 && strings.HasPrefix((*saLogs)[0], fmt.Sprintf("Dummy buffer at %d ", host.Ptr))) {
				t.Fatalf("mooncake_client logged %q for an unregistered host buffer; want a line: %v", *saLogs, c.hostLines)
			}
			if rc, _ := dummy.RegisterBuffer(ctx, host.Ptr, host.Size); rc != c.hostRegister {
				t.Fatalf("register_buffer(host) = %d, want %d", rc, c.hostRegister)
			}
			if c.hostRegister != 0 {
				return
			}
			*saLogs = nil
			got, err = dummy.BatchGetInto(ctx, []string{"k0"}, []uint64{host.Ptr}, []int64{size})
			if err != nil || !slices.Equal(got, []int{c.hostGet}) {
				t.Fatalf("registered host batch_get_into = %v, %v; want [%d]", got, err, c.hostGet)
			}
			got, err = dummy.BatchPutFrom(ctx, []string{"k1", "k2"}, []uint64{host.Ptr, host.Ptr + size}, []int64{size, size})
			if err != nil || !slices.Equal(got, c.hostPut) {
				t.Fatalf("registered host batch_put_from = %v, %v; want %v", got, err, c.hostPut)
			}
			if len(*saLogs) != 0 {
				t.Fatalf("mooncake_client logged %q for a registered host buffer", *saLogs)
			}
		})
	}
}
