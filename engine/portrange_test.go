package engine

import "testing"

func TestPortRangeSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
		err  string
	}{
		{"", 0, ""},
		{"61000 61015", 16, ""},
		{"32768\t60999", 28232, ""},
		{"1024 1024", 1, ""},
		{"61000-61015", 0, `"61000-61015" is not "low high" (two port numbers, as sysctl net.ipv4.ip_local_port_range prints them)`},
		{"a b", 0, `"a b": ports are whole numbers`},
		{"61015 61000", 0, `"61015 61000": Linux takes 1 ≤ low ≤ high ≤ 65535`},
		{"0 100", 0, `"0 100": Linux takes 1 ≤ low ≤ high ≤ 65535`},
		{"1 65536", 0, `"1 65536": Linux takes 1 ≤ low ≤ high ≤ 65535`},
	} {
		got, err := PortRangeSize(c.in)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if got != c.want || msg != c.err {
			t.Errorf("PortRangeSize(%q) = %d, %q; want %d, %q", c.in, got, msg, c.want, c.err)
		}
	}
}
