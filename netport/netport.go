// Package netport hands out loopback TCP ports that stay their owner's
// until released, also while nothing listens on them: a proxy stopped to
// refuse, a master stopped by a fault and started again on its port. A
// port picked by binding :0 and closing is free for the next :0 bind of a
// parallel world, which then serves where a refused client of this world
// dials (seen: a refused SGLang reached another world's master).
//
// Ports are a host-wide resource, so the registry is one per process:
// every world of every engine in this process takes its ports from it.
package netport

import (
	"fmt"
	"net"
	"sync"
)

// registry is process-wide on purpose (see the package comment).
var registry = struct {
	sync.Mutex
	owned map[int]bool
}{owned: map[int]bool{}}

// Take reserves n distinct loopback ports that no other Take of this
// process returns until they are released. Each was free when taken.
func Take(n int) ([]int, error) {
	registry.Lock()
	defer registry.Unlock()
	// Listeners stay open until the end so the kernel hands out a new port
	// on every bind, also past ports owned by someone else.
	var open []net.Listener
	defer func() {
		for _, l := range open {
			_ = l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for tries := 0; len(ports) < n; tries++ {
		if tries > 1000 {
			return nil, fmt.Errorf("netport: no free loopback port after %d binds (%d owned)", tries, len(registry.owned))
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("netport: free port: %w", err)
		}
		open = append(open, l)
		p := l.Addr().(*net.TCPAddr).Port
		if registry.owned[p] {
			continue
		}
		ports = append(ports, p)
	}
	for _, p := range ports {
		registry.owned[p] = true
	}
	return ports, nil
}

// Release gives ports back; releasing a port twice is harmless.
func Release(ports ...int) {
	registry.Lock()
	defer registry.Unlock()
	for _, p := range ports {
		delete(registry.owned, p)
	}
}
