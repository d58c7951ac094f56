package metadata

import (
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/mooncake"
)

func TestStartRefusal(t *testing.T) {
	p14, err := mooncake.ProfileFor("0.3.14")
	if err != nil {
		t.Fatal(err)
	}
	p13, err := mooncake.ProfileFor("0.3.13.post1")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		p      mooncake.Profile
		host   string
		env    map[string]string
		refuse bool
	}{
		{"0.3.14 default host", p14, "0.0.0.0", nil, true},
		{"0.3.14 every IPv6 address", p14, "::", nil, true},
		{"0.3.14 a pod's address", p14, "10.0.0.7", nil, true},
		{"0.3.14 a name is not resolved", p14, "metadata.local", nil, true},
		{"0.3.14 empty token", p14, "0.0.0.0", map[string]string{TokenEnv: ""}, true},
		{"0.3.14 insecure 0", p14, "0.0.0.0", map[string]string{AllowInsecureEnv: "0"}, true},
		{"0.3.14 token", p14, "0.0.0.0", map[string]string{TokenEnv: "s3cret"}, false},
		{"0.3.14 insecure 1", p14, "0.0.0.0", map[string]string{AllowInsecureEnv: "1"}, false},
		{"0.3.14 insecure TRUE", p14, "0.0.0.0", map[string]string{AllowInsecureEnv: "TRUE"}, false},
		{"0.3.14 insecure yes", p14, "0.0.0.0", map[string]string{AllowInsecureEnv: "yes"}, false},
		{"0.3.14 loopback", p14, "127.0.0.1", nil, false},
		{"0.3.14 loopback range", p14, "127.0.0.2", nil, false},
		{"0.3.14 IPv6 loopback", p14, "::1", nil, false},
		{"0.3.14 localhost", p14, "localhost", nil, false},
		{"0.3.13.post1 has no check", p13, "0.0.0.0", nil, false},
	} {
		got := StartRefusal(tc.p, tc.host, 18080, tc.env)
		if (got != "") != tc.refuse {
			t.Errorf("%s: StartRefusal = %q, want refusal %v", tc.name, got, tc.refuse)
		}
		if tc.refuse && !strings.HasPrefix(got, "RuntimeError: HTTP Metadata Server refuses to bind "+tc.host+":18080 without an authentication token") {
			t.Errorf("%s: %q", tc.name, got)
		}
	}
}
