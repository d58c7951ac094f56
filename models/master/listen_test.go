package master

import (
	"testing"

	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// TestRPCListens: which families --rpc_address opens, per release, as
// real mooncake_master did on this machine's loopback (ss -ltn and a
// store client's setup at [::1]:port and 127.0.0.1:port;
// docs/REAL-FINDINGS.md §34).
func TestRPCListens(t *testing.T) {
	for _, c := range []struct {
		v, addr string
		v4, v6  bool
	}{
		{"0.3.13.post1", "", true, false}, // no flag: 0.0.0.0
		{"0.3.9", "0.0.0.0", true, false},
		{"0.3.9", "127.0.0.1", true, false},
		{"0.3.4.post2", "::", true, true},
		{"0.3.8.post1", "::", true, true},
		{"0.3.13.post1", "::", true, true},
		{"0.3.4.post2", "::1", false, true},
		{"0.3.8.post1", "::1", false, false},
		{"0.3.10.post1", "::1", false, false},
		{"0.3.11.post1", "::1", false, true},
		{"0.3.7.post2", "[::]", false, false},
		{"0.3.10.post1", "[::]", false, false},
		{"0.3.13.post1", "[::]", true, true},
		{"0.3.11.post1", "[::]", false, false},
		{"0.3.12.post1", "[::]", false, false},
	} {
		cfg, err := ConfigFor(mooncake.MustProfile(c.v), map[string]string{"rpc_address": c.addr})
		if c.addr == "" {
			cfg, err = ConfigFor(mooncake.MustProfile(c.v), nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		if v4, v6 := cfg.RPCListens(); v4 != c.v4 || v6 != c.v6 {
			t.Errorf("%s --rpc_address=%q: listens v4 %v v6 %v, want %v %v", c.v, c.addr, v4, v6, c.v4, c.v6)
		}
	}
}

// TestMetadataListens: the embedded HTTP metadata server's families per
// --http_metadata_server_host (real, ss -ltn; docs/REAL-FINDINGS.md §34).
func TestMetadataListens(t *testing.T) {
	for _, c := range []struct {
		v, host string
		v4, v6  bool
	}{
		{"0.3.6.post1", "::", true, false},
		{"0.3.9", "::1", true, false},
		{"0.3.13.post1", "[::]", true, false},
		{"0.3.13.post1", "::", true, false},
		{"0.3.14", "0.0.0.0", true, false},
		{"0.3.14", "::", true, true},
		{"0.3.14", "[::]", true, true},
		{"0.3.14", "::1", false, true},
	} {
		cfg, err := ConfigFor(mooncake.MustProfile(c.v), map[string]string{"http_metadata_server_host": c.host})
		if err != nil {
			t.Fatal(err)
		}
		if v4, v6 := cfg.MetadataListens(); v4 != c.v4 || v6 != c.v6 {
			t.Errorf("%s --http_metadata_server_host=%q: listens v4 %v v6 %v, want %v %v", c.v, c.host, v4, v6, c.v4, c.v6)
		}
	}
}
