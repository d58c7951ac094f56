package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// PortRangeSize is the number of ports of an ip_local_port_range value
// ("low high", as sysctl prints it; 0 for ""). Linux takes 1 ≤ low ≤ high
// ≤ 65535 (proc_dointvec_minmax with ipv4_local_port_range's checks; a
// range the harness's own explicitly bound ports cannot collide with is
// the scenario's business).
func PortRangeSize(v string) (int, error) {
	if v == "" {
		return 0, nil
	}
	f := strings.Fields(v)
	if len(f) != 2 {
		return 0, fmt.Errorf("%q is not \"low high\" (two port numbers, as sysctl net.ipv4.ip_local_port_range prints them)", v)
	}
	lo, err1 := strconv.Atoi(f[0])
	hi, err2 := strconv.Atoi(f[1])
	switch {
	case err1 != nil || err2 != nil:
		return 0, fmt.Errorf("%q: ports are whole numbers", v)
	case lo < 1 || hi > 65535 || lo > hi:
		return 0, fmt.Errorf("%q: Linux takes 1 ≤ low ≤ high ≤ 65535", v)
	}
	return hi - lo + 1, nil
}
