package explain

import (
	"fmt"
	"strings"
	"testing"
)

func TestCondenseLog(t *testing.T) {
	retries := func(n int) string {
		var b strings.Builder
		b.WriteString("W1201 12:00:00.000001 7 real_client.cpp:300] Client not available\n")
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "E1201 12:00:%02d.%06d 7 real_client.cpp:310] Failed to create client on port %d, retry %d/%d\n", i%60, i, 12000+i, i, n)
		}
		b.WriteString("E1201 12:01:00.000001 7 real_client.cpp:320] Failed to create client after 20 retries")
		return b.String()
	}
	keys := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "Transfer failed for key k%d at 0x7f%010x\nput ok for 4c67fd4f%08x\n", i, i<<12, i)
		}
		return strings.TrimSuffix(b.String(), "\n")
	}
	for _, tc := range []struct {
		name, in string
		want     []string
		set      int
	}{
		{"short logs are read whole", retries(20), nil, 0},
		{"a long retry loop keeps its first two attempts and its last", retries(500), []string{
			"W1201 12:00:00.000001 7 real_client.cpp:300] Client not available",
			"E1201 12:00:01.000001 7 real_client.cpp:310] Failed to create client on port 12001, retry 1/500",
			"E1201 12:00:02.000002 7 real_client.cpp:310] Failed to create client on port 12002, retry 2/500",
			"E1201 12:00:20.000500 7 real_client.cpp:310] Failed to create client on port 12500, retry 500/500",
			"E1201 12:01:00.000001 7 real_client.cpp:320] Failed to create client after 20 retries",
		}, 497},
		{"keys and hex ids make no kind of their own", keys(300), []string{
			"Transfer failed for key k0 at 0x7f0000000000", "put ok for 4c67fd4f00000000",
			"Transfer failed for key k1 at 0x7f0000001000", "put ok for 4c67fd4f00000001",
			"Transfer failed for key k299 at 0x7f000012b000", "put ok for 4c67fd4f0000012b",
		}, 594},
	} {
		out, _, set := condenseLog(tc.in)
		want := tc.in
		if tc.want != nil {
			want = strings.Join(tc.want, "\n")
		}
		if out != want || set != tc.set {
			t.Errorf("%s: set %d (want %d)\n%s", tc.name, set, tc.set, out)
		}
	}
}

func TestClipLines(t *testing.T) {
	long := strings.Repeat("a", MaxLineBytes-1) + "é" + strings.Repeat("b", 10)
	for _, tc := range []struct{ in, want string }{
		{"short\nlines", "short\nlines"},
		// é's two bytes straddle the limit: cut before it, not inside.
		{"x\n" + long + "\ny", "x\n" + strings.Repeat("a", MaxLineBytes-1) + " …\ny"},
	} {
		if got := clipLines(tc.in); got != tc.want {
			t.Errorf("clipLines(%.20q…) = %.40q… (%d bytes), want %d bytes", tc.in, got, len(got), len(tc.want))
		}
	}
}
