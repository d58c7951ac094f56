package client

import (
	"testing"

	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// extractIpAddress as transfer_task.cpp v0.3.10.post2:781-808 splits an
// endpoint: brackets for IPv6, else up to the last colon.
func TestExtractIPAddress(t *testing.T) {
	for in, want := range map[string]string{
		"localhost:62499": "localhost",
		"127.0.0.1:13925": "127.0.0.1",
		"[::1]:15875":     "::1",
		"[::1":            "",
		"::1:15875":       "::1",
		"localhost":       "localhost",
		"":                "",
	} {
		if got := extractIPAddress(in); got != want {
			t.Errorf("extractIPAddress(%q) = %q, want %q", in, got, want)
		}
	}
}

// Which replica endpoints the store memcpys, per release: the IP-only
// isLocalTransfer (v0.3.10 … v0.3.10.post2) takes another process's
// endpoint on the same host (real 0.3.10.post2: SIGSEGV); the others
// take only the process's own.
func TestLocalTransferIPOnly(t *testing.T) {
	const local, hostname = "localhost:62507", "localhost:13223"
	for _, c := range []struct {
		version, endpoint string
		local, own        bool
	}{
		{"0.3.9", "localhost:62499", false, false},
		{"0.3.10", "localhost:62499", true, false},
		{"0.3.10.post1", "localhost:62499", true, false},
		{"0.3.10.post2", "localhost:62499", true, false},
		{"0.3.10.post2", "127.0.0.1:62499", false, false},
		{"0.3.10.post2", "localhost:62507", true, true},
		{"0.3.11", "localhost:62499", false, false},
		{"0.3.14", "localhost:62499", false, false},
		{"0.3.14", "localhost:13223", true, true},
	} {
		p := mooncake.MustProfile(c.version)
		own := sameProcessEndpoint(c.endpoint, local, hostname)
		got := isLocalTransfer(p.LocalTransferIPOnly, c.endpoint, local, hostname)
		if got != c.local || own != c.own {
			t.Errorf("%s, replica at %s: local %v own %v, want %v %v", c.version, c.endpoint, got, own, c.local, c.own)
		}
	}
}
