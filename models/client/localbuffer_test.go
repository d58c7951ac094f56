package client_test

import (
	"context"
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/models/client"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/rng"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// put and get of Python bytes go through the local buffer (1 MiB here):
// an object larger than it fails in each release's words (real 0.3.4,
// 0.3.6.post1, 0.3.7.post2, 0.3.9, 0.3.13.post1, 0.3.14;
// docs/REAL-FINDINGS.md §39).
func TestLocalBufferTooSmall(t *testing.T) {
	cases := []struct {
		version string
		putRC   int
		putLine string
		getLine string // "" = not modelled at that release
	}{
		{"0.3.4", 1, "Failed to allocate slices for put operation, key: big, value size: 2097152", ""},
		{"0.3.5", -600, "Failed to allocate buffer for put operation, key: big, value size: 2097152", "Failed to allocate buffer for get operation, key: obj, size: 2097152"},
		{"0.3.7.post2", -600, "Failed to allocate buffer for put operation, key: big, value size: 2097152", "Failed to allocate buffer for get_buffer, key: obj"},
		{"0.3.14", -600, "Failed to allocate buffer for put operation, key: big, value size: 2097152", "Failed to allocate buffer for get_buffer, key: obj"},
	}
	for _, tc := range cases {
		t.Run(tc.version, func(t *testing.T) {
			ctx := context.Background()
			clock := &manualClock{}
			p, _ := mooncake.ProfileFor(tc.version)
			cfg, _ := master.ConfigFor(p, nil)
			m := master.New(cfg, clock, nil, rng.Stream(1, "m"))
			var logs []string
			c := client.NewRealClient(deps(t, tc.version, clock, direct{m}, &logs))
			if rc, err := c.Setup(ctx, args("localhost")); rc != 0 || err != nil {
				t.Fatalf("setup = %d, %v; logs %q", rc, err, logs)
			}
			logs = nil
			if rc, _ := c.Put(ctx, "big", make([]byte, 2<<20)); rc != tc.putRC {
				t.Fatalf("put = %d, want %d", rc, tc.putRC)
			}
			if !slices.Equal(logs, []string{tc.putLine}) {
				t.Fatalf("put lines %q, want %q", logs, tc.putLine)
			}
			if rc, _ := c.Put(ctx, "small", []byte("v")); rc != 0 {
				t.Fatalf("a put that fits = %d", rc)
			}
			// An object larger than this client's buffer, put by another
			// client (zero-copy, as SGLang's pages are), read back by get.
			if _, err := m.PutStart(ctx, "obj", 2<<20, master.ReplicateConfig{ReplicaNum: 1}); err != nil {
				t.Fatal(err)
			}
			if err := m.PutEnd(ctx, "obj"); err != nil {
				t.Fatal(err)
			}
			logs = nil
			got, _ := c.Get(ctx, "obj")
			if tc.getLine == "" {
				return
			}
			if len(got) != 0 || !slices.Equal(logs, []string{tc.getLine}) {
				t.Fatalf("get = %d bytes, lines %q; want b\"\" and %q", len(got), logs, tc.getLine)
			}
		})
	}
}
