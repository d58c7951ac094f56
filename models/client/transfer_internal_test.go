package client

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// statusFrameTimeout reads MC_TCP_STATUS_TIMEOUT_SEC as tcp_transport.cpp's
// statusFrameTimeoutSec does: atoi, a value under 1 is 30 s.
func TestStatusFrameTimeout(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want time.Duration
	}{
		{nil, 30 * time.Second},
		{map[string]string{"MC_TCP_STATUS_TIMEOUT_SEC": "3"}, 3 * time.Second},
		{map[string]string{"MC_TCP_STATUS_TIMEOUT_SEC": "90s"}, 90 * time.Second},
		{map[string]string{"MC_TCP_STATUS_TIMEOUT_SEC": "0"}, 30 * time.Second},
		{map[string]string{"MC_TCP_STATUS_TIMEOUT_SEC": "-5"}, 30 * time.Second},
		{map[string]string{"MC_TCP_STATUS_TIMEOUT_SEC": "abc"}, 30 * time.Second},
	} {
		p, err := mooncake.ProfileFor("0.3.12.post1")
		if err != nil {
			t.Fatal(err)
		}
		c0 := &RealClient{d: Deps{Env: c.env}, p: p}
		if got := c0.statusFrameTimeout(); got != c.want {
			t.Errorf("MC_TCP_STATUS_TIMEOUT_SEC %v: %v, want %v", c.env, got, c.want)
		}
	}
}

// addressNotRegistered prints the transport's and the submitter's lines,
// then the line of the store's caller: BatchPut's SubmitTransfers,
// BatchGet's per key, or TransferData's (a single put or get).
func TestAddressNotRegistered(t *testing.T) {
	for _, c := range []struct {
		name  string
		write bool
		batch bool // BatchPut
		get   bool // inside a batch_get_into
		want  string
	}{
		{"batch put", true, true, false, "Transfer submission failed for key k: Failed to submit transfer for replica 0"},
		{"batch get", false, false, true, "Failed to submit transfer operation for key: k"},
		{"single get", false, false, false, "Failed to submit transfer operation"},
		{"single put", true, false, false, "Failed to submit transfer operation"},
	} {
		var logs []string
		c0 := &RealClient{d: Deps{Log: mlog.Func(func(_, text string) { logs = append(logs, text) })}}
		ctx := context.Background()
		if c.get {
			ctx = master.WithBatch(ctx, []string{"k"})
		}
		c0.addressNotRegistered(ctx, 0x12c180000000, c.write, "k", c.batch)
		want := []string{
			"Memory region not registered by any active device(s): 0x12c180000000",
			"Failed to submit all transfers, error code is AddressNotRegistered",
			c.want,
		}
		if !slices.Equal(logs, want) {
			t.Errorf("%s: logged %q, want %q", c.name, logs, want)
		}
		if fails := len(c0.batchFails); fails != map[bool]int{true: 1, false: 0}[c.batch] {
			t.Errorf("%s: %d batch failures recorded", c.name, fails)
		}
	}
}

// A zero-copy call's transfer moves the caller's buffer; any other the
// client's local buffer.
func TestTransferSource(t *testing.T) {
	c0 := &RealClient{}
	if got := c0.transferSource(context.Background()); got != 0 {
		t.Errorf("without a local buffer or a zero-copy buffer: %#x, want 0", got)
	}
	if got := c0.transferSource(withZeroCopy(context.Background(), 0x7f0000001000)); got != 0x7f0000001000 {
		t.Errorf("zero-copy: %#x, want 0x7f0000001000", got)
	}
}
