package realengine

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/mooncake-faultlab/faultlab/engine"
)

// portRangeSupported says why a node's ip_local_port_range cannot run
// here ("" = it can). The range and tcp_tw_reuse are the network
// namespace's, not a process's: the world runs only where they already are
// what the node asks (a namespace of its own, made by hand), never by
// changing this host's. tcp_tw_reuse must be 0: its default 2 lets
// loopback connections reuse TIME_WAIT ports, which a field deployment's
// connections between hosts cannot.
func portRangeSupported(n engine.NodeSpec, containers bool) string {
	if n.EphemeralPorts == 0 {
		return ""
	}
	if containers {
		return fmt.Sprintf("node %s: ip_local_port_range: not applied to container worlds yet", n.Name)
	}
	size, reuse, err := hostPortRange()
	if err != nil {
		return fmt.Sprintf("node %s: ip_local_port_range: %v", n.Name, err)
	}
	if size == n.EphemeralPorts && reuse == 0 {
		return ""
	}
	return fmt.Sprintf("node %s: ip_local_port_range of %d ports with tcp_tw_reuse=0 is a network namespace's setting, and this one has %d ports and tcp_tw_reuse=%d; run the world in a namespace of its own, as root: unshare -n sh -c 'ip link set lo up; sysctl -qw net.ipv4.ip_local_port_range=\"61000 %d\" net.ipv4.tcp_tw_reuse=0; faultlab run …' (docs/REAL-FINDINGS.md §69)",
		n.Name, n.EphemeralPorts, size, reuse, 61000+n.EphemeralPorts-1)
}

// hostPortRange reads this network namespace's ip_local_port_range size
// and tcp_tw_reuse.
func hostPortRange() (size, reuse int, err error) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0, 0, err
	}
	if size, err = engine.PortRangeSize(strings.TrimSpace(string(b))); err != nil {
		return 0, 0, err
	}
	r, err := os.ReadFile("/proc/sys/net/ipv4/tcp_tw_reuse")
	if err != nil {
		return 0, 0, err
	}
	reuse, err = strconv.Atoi(strings.TrimSpace(string(r)))
	if err != nil {
		return 0, 0, fmt.Errorf("tcp_tw_reuse %q: %w", r, err)
	}
	return size, reuse, nil
}
