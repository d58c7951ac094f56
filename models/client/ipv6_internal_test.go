package client

import "testing"

// ipv6HostPort decides whether a 0.3.7-or-older client's pool fails to
// resolve the master address (Profile.MasterAddrIPv6).
func TestIPv6HostPort(t *testing.T) {
	for addr, want := range map[string]bool{
		"[::1]:50051":             true,
		"::1:50051":               true,
		"[fd00::2]:50051":         true,
		"fd00::2:50051":           true,
		"127.0.0.1:50051":         false,
		"localhost:50051":         false,
		"etcd://10.0.0.1:2379":    false,
		"etcd://[::1]:2379;a:1":   false,
		"master.example.com:5005": false,
	} {
		if got := ipv6HostPort(addr); got != want {
			t.Errorf("ipv6HostPort(%q) = %v, want %v", addr, got, want)
		}
	}
}
