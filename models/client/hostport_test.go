package client

import "testing"

// hasExplicitPort from v0.3.12 knows IPv6; before, any ':' was a port
// (sim,real seed 30143: "[::1]" at 0.3.13.post1 gets a bound port).
func TestLocalHostPort(t *testing.T) {
	for _, c := range []struct {
		name string
		ipv6 bool
		host string
		has  bool
	}{
		{"[::1]", true, "[::1]", false},
		{"[::1]:13678", true, "[::1]", true},
		{"::1", true, "[::1]", false},
		{"127.0.0.1", true, "127.0.0.1", false},
		{"127.0.0.1:99999", true, "127.0.0.1", true},
		{"localhost", true, "localhost", false},
		{"[::1]", false, "[", true},
		{"localhost", false, "localhost", false},
		{"127.0.0.1:abc", false, "127.0.0.1", true},
	} {
		host, has := localHostPort(c.name, c.ipv6)
		if host != c.host || has != c.has {
			t.Errorf("localHostPort(%q, %v) = %q, %v; want %q, %v", c.name, c.ipv6, host, has, c.host, c.has)
		}
	}
}
