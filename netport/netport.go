// Package netport hands out loopback TCP ports that stay their owner's
// until released, also while nothing listens on them: a proxy stopped to
// refuse, a master stopped by a fault and started again on its port.
//
// The ports come from below the kernel's ephemeral range
// (net.ipv4.ip_local_port_range) and above Mooncake's own ranges
// (12300-14300 for mooncake_client's auto port, 15000-17000 for the
// transfer engine's RPC and TCP data ports). A port from the ephemeral
// range is, while nothing listens on it, free for two things that no
// registry can stop: any :0 bind in the process (a fake world's server,
// seen: a refused SGLang reached another world's master), and the source
// port of any outgoing connection on the machine, including a client
// dialling that very port, which then connects to itself (TCP
// simultaneous open) and talks to its own socket. Neither picks a port
// below the ephemeral range.
//
// Ports are a host-wide resource, so the registry is one per process:
// every world of every engine in this process takes its ports from it.
// Across processes (go test runs packages in parallel, CI runs two lanes,
// a user runs two faultlab at once) each taken port is also claimed as
// ClaimPorts does, on its abstract unix socket: a port another process
// took but does not listen on yet (a master still starting, one stopped
// by a fault) is skipped, where a bind check alone saw it free and two
// worlds shared a master (seen: a world's keys in another's master).
package netport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

// lowest is the first port handed out: above Mooncake's ranges.
const lowest = 20000

// registry is process-wide on purpose (see the package comment).
var registry = struct {
	sync.Mutex
	owned map[int]net.Listener // the port's host-wide claim
	next  int                  // where the next scan starts; 0 = not yet chosen
}{owned: map[int]net.Listener{}}

// Take reserves n distinct loopback ports that no other Take of this
// process returns until they are released. Each was free when taken.
func Take(n int) ([]int, error) {
	registry.Lock()
	defer registry.Unlock()
	lo, hi := span()
	if registry.next == 0 {
		registry.next = lo + rand.IntN(hi-lo)
	}
	ports := make([]int, 0, n)
	for tried := 0; len(ports) < n; tried++ {
		if tried >= hi-lo {
			return nil, fmt.Errorf("netport: no free loopback port in %d-%d (%d owned by this process)", lo, hi-1, len(registry.owned))
		}
		p := registry.next
		if registry.next++; registry.next >= hi {
			registry.next = lo
		}
		if _, ok := registry.owned[p]; ok {
			continue
		}
		claim, err := claimPort(p)
		if err != nil {
			continue // another process's
		}
		if !free(p) {
			_ = claim.Close()
			continue
		}
		registry.owned[p] = claim
		ports = append(ports, p)
	}
	return ports, nil
}

// Release gives ports back; releasing a port twice is harmless.
func Release(ports ...int) {
	registry.Lock()
	defer registry.Unlock()
	for _, p := range ports {
		if claim, ok := registry.owned[p]; ok {
			_ = claim.Close()
			delete(registry.owned, p)
		}
	}
}

// free reports whether nothing on the machine holds p on loopback.
func free(p int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
	if err != nil {
		return false
	}
	_ = l.Close()
	return true
}

// span is [lowest, first ephemeral port). A machine whose ephemeral range
// starts too low for that gets the ports above the range instead.
func span() (lo, hi int) {
	first, last := ephemeralRange()
	if first-lowest >= 1000 {
		return lowest, first
	}
	return last + 1, 65536
}

// ephemeralRange is the kernel's, or Linux's default when unreadable.
func ephemeralRange() (first, last int) {
	first, last = 32768, 60999
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return first, last
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return first, last
	}
	a, err1 := strconv.Atoi(f[0])
	z, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || a > z {
		return first, last
	}
	return a, z
}

// held are the ports Hold listens on for this process's worlds, with how
// many worlds hold each: process-wide like registry, since worlds running
// in parallel may hold the same port (a scenario at several versions).
var held = struct {
	sync.Mutex
	ls map[int]*holding
}{ls: map[int]*holding{}}

type holding struct {
	l net.Listener
	n int
}

// Hold listens on port on every address (":port", IPv4 and IPv6), as
// another process on the host would, so that a bind of it elsewhere
// fails with EADDRINUSE; nothing is accepted. Worlds of this process
// holding the same port share the listener; it closes when the last one
// releases it (release is idempotent).
func Hold(port int) (release func(), err error) {
	held.Lock()
	defer held.Unlock()
	h, ok := held.ls[port]
	if !ok {
		l, err := net.Listen("tcp", ":"+strconv.Itoa(port))
		if err != nil {
			return nil, fmt.Errorf("netport: hold port %d: %w", port, err)
		}
		h = &holding{l: l}
		held.ls[port] = h
	}
	h.n++
	var once sync.Once
	return func() {
		once.Do(func() {
			held.Lock()
			defer held.Unlock()
			if h.n--; h.n == 0 {
				_ = h.l.Close()
				delete(held.ls, port)
			}
		})
	}, nil
}
