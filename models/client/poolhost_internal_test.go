package client

import "testing"

// TestPoolHost: the coro_rpc pool's reconnect line names the host without
// an IPv6 literal's brackets (real 0.3.9, setup/ipv6-master-bound-ipv4:
// "host:{::1:P} out of max limit" after "[::1]:P" was dialled).
func TestPoolHost(t *testing.T) {
	for in, want := range map[string]string{
		"[::1]:50051":     "::1:50051",
		"[fd00::2]:1":     "fd00::2:1",
		"127.0.0.1:50051": "127.0.0.1:50051",
		"::1:50051":       "::1:50051",
		"[::1":            "[::1",
		"master:50051":    "master:50051",
	} {
		if got := poolHost(in); got != want {
			t.Errorf("poolHost(%q) = %q, want %q", in, got, want)
		}
	}
}
