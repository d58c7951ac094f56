package master

import (
	"slices"
	"testing"

	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// TestStartAdmin: the admin HTTP server's start on a port another process
// holds, per release, as real mooncake_master printed it with
// --metrics_port held (docs/REAL-FINDINGS.md §135): 0.3.7.post2 …
// 0.3.10.post1 serve on, 0.3.10.post2 … 0.3.14 exit 1.
func TestStartAdmin(t *testing.T) {
	exitsPort := []string{"ERROR Failed to start master admin server on port 18790", "ERROR Failed to start master admin server"}
	exitsHost := func(host string) []string {
		return []string{"ERROR Failed to start master admin server on " + host + ":18790: Address already in use", "ERROR Failed to start master admin server"}
	}
	servesOn := []string{"ERROR bind port: 18790 error: Address already in use", "INFO HTTP metrics server started on port 18790"}
	for _, c := range []struct {
		v     string
		host  string
		taken bool
		want  AdminStart
		lines []string
	}{
		{"0.3.14", "", false, AdminServes, nil},
		{"0.3.9", "", false, AdminServes, nil},
		{"0.3.7.post2", "", true, AdminUnchecked, servesOn},
		{"0.3.9", "", true, AdminUnchecked, servesOn},
		{"0.3.10.post1", "", true, AdminUnchecked, servesOn},
		{"0.3.10.post2", "", true, AdminExits, exitsPort},
		{"0.3.11.post1", "", true, AdminExits, exitsPort},
		{"0.3.12.post1", "", true, AdminExits, exitsPort},
		{"0.3.13.post1", "", true, AdminExits, exitsHost("0.0.0.0")},
		{"0.3.14", "", true, AdminExits, exitsHost("0.0.0.0")},
		{"0.3.14", "127.0.0.1", true, AdminExits, exitsHost("127.0.0.1")},
	} {
		p, err := mooncake.ProfileFor(c.v)
		if err != nil {
			t.Fatal(err)
		}
		flags := map[string]string{}
		if c.host != "" {
			flags["metrics_host"] = c.host
		}
		cfg, err := ConfigFor(p, flags)
		if err != nil {
			t.Fatal(err)
		}
		var log recordLog
		if got := StartAdmin(cfg, 18790, c.taken, &log); got != c.want || !slices.Equal(log.lines, c.lines) {
			t.Errorf("%s host %q taken %v: %v %q, want %v %q", c.v, c.host, c.taken, got, log.lines, c.want, c.lines)
		}
	}
}
