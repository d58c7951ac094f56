package te

import (
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// TestParseHostNameWithPort: parseHostNameWithPort per release (common.h
// v0.3.4:117-129, v0.3.7.post2:161-187, v0.3.9:244-262) and the warnings
// real printed (setup/local-hostname-bad-port; 0.3.7.post2's "[::1]").
func TestParseHostNameWithPort(t *testing.T) {
	for _, tc := range []struct {
		version, name string
		env           map[string]string
		want          hostPort
		logs          []string
	}{
		{"0.3.4.post2", "127.0.0.1:abc", nil, hostPort{"127.0.0.1", 12001, true}, []string{"Illegal port number in 127.0.0.1:abc. Use default port 12001 instead"}},
		{"0.3.4.post2", "127.0.0.1:99999", nil, hostPort{"127.0.0.1", 12001, true}, []string{"Illegal port number in 127.0.0.1:99999. Use default port 12001 instead"}},
		{"0.3.4.post2", "127.0.0.1:17781x", nil, hostPort{"127.0.0.1", 17781, false}, nil}, // atoi stops at x
		{"0.3.7.post2", "127.0.0.1:17781x", nil, hostPort{"127.0.0.1", 12001, true}, []string{"Illegal port number in 17781x. Use default port 12001 instead"}},
		{"0.3.7.post2", "[::1]", nil, hostPort{"::1", 12001, true}, []string{"Illegal port number in [::1]. Use default port 12001 instead"}},
		{"0.3.7.post2", "[::1]:17781", nil, hostPort{"::1", 17781, false}, nil},
		{"0.3.9", "[::1]", nil, hostPort{"::1", 12001, false}, nil},
		{"0.3.9", "::1", nil, hostPort{"::1", 12001, false}, nil},
		{"0.3.9", "127.0.0.1:abc", nil, hostPort{"127.0.0.1", 12001, true}, []string{"Illegal port number in abc. Use default port 12001 instead"}},
		{"0.3.12.post1", "127.0.0.1:99999", nil, hostPort{"127.0.0.1", 12001, true}, []string{"Illegal port number in 99999. Use default port 12001 instead"}},
		{"0.3.12.post1", "127.0.0.1:", map[string]string{"MC_HANDSHAKE_PORT": "13001"}, hostPort{"127.0.0.1", 13001, true}, []string{"Illegal port number in . Use default port 13001 instead"}},
		{"0.3.14", "127.0.0.1:0", nil, hostPort{"127.0.0.1", 0, false}, nil}, // from_chars takes 0
		{"0.3.14", "localhost", nil, hostPort{"localhost", 12001, false}, nil},
	} {
		p, err := mooncake.ProfileFor(tc.version)
		if err != nil {
			t.Fatal(err)
		}
		var logs []string
		e := New(Config{Profile: p, Env: tc.env, Log: mlog.Func(func(_, text string) { logs = append(logs, text) })})
		if got := e.parseHostNameWithPort(tc.name); got != tc.want {
			t.Errorf("%s %q: got %+v, want %+v", tc.version, tc.name, got, tc.want)
		}
		if !slices.Equal(logs, tc.logs) {
			t.Errorf("%s %q: logs %q, want %q", tc.version, tc.name, logs, tc.logs)
		}
	}
}
