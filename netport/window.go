package netport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
)

// Port windows: a Mooncake transfer engine picks its RPC port and (from
// 0.3.5) its TCP transport's port at random in rpc_min_port..rpc_max_port,
// 15000..17000 unless MC_MIN_PRC_PORT/MC_MAX_PRC_PORT (0.3.7 to 0.3.10.x)
// or MC_MIN_RPC_PORT/MC_MAX_RPC_PORT (0.3.11+) move it. Processes of worlds
// running side by side then race for one port (Mooncake#601's bind) or one
// binds a departed peer's port that another still dials. A window is a
// block of ports only one Mooncake process on the host draws from.
//
// Windows lie above both the kernel's ephemeral range (no :0 bind and no
// source port takes one) and 32768..60999, which ValidatePortRange
// (config.cpp from v0.3.11) rejects whatever the host's range is; and
// above this package's own ports, so the harness's listeners, toxiproxy
// and the masters never sit in one.
const (
	// windowLowest is ValidatePortRange's kEphemeralEnd + 1.
	windowLowest = 61000
	// WindowStride is the ports one window spans: its claim port, then
	// the WindowStride-1 ports the process draws from. findAvailableTcpPort
	// tries 500 random ports; a process holds two or three at a time.
	WindowStride = 32
)

// Window is ports [Lo, Hi] that no other Window on the host (in this
// process or another) includes until Release.
type Window struct {
	Lo, Hi int
	claim  net.Listener
}

// WindowAt is the k-th window of a span starting at lo: its claim port
// and the ports it hands out.
func WindowAt(lo, k int) (claim, first, last int) {
	claim = lo + k*WindowStride
	return claim, claim + 1, claim + WindowStride - 1
}

// windows are the window claims of this process (a listen of one claim
// port twice in one process fails as well, but this keeps the scan short).
var windows = struct {
	sync.Mutex
	owned map[int]bool // by claim port
	next  int          // the window the next scan starts at; -1 = not chosen
}{owned: map[int]bool{}, next: -1}

// TakeWindow claims a free window host-wide: it listens on the window's
// claim port on loopback, as every claimer does, so a second claim (this
// process's or another's) fails to bind it. Mooncake never binds a claim
// port (no window includes one). The claim lasts until Release or the
// process's end.
func TakeWindow() (*Window, error) {
	lo, hi := windowSpan()
	n := (hi - lo) / WindowStride
	if n <= 0 {
		return nil, fmt.Errorf("netport: no room for port windows above the ephemeral range and this package's ports (from %d)", lo)
	}
	windows.Lock()
	defer windows.Unlock()
	if windows.next < 0 {
		windows.next = rand.IntN(n) // processes start their scans apart
	}
	for range n {
		k := windows.next % n
		windows.next = k + 1
		claim, first, last := WindowAt(lo, k)
		if windows.owned[claim] {
			continue
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(claim)))
		if err != nil {
			continue // another process's window, or something else's port
		}
		windows.owned[claim] = true
		return &Window{Lo: first, Hi: last, claim: l}, nil
	}
	return nil, fmt.Errorf("netport: all %d port windows of %d-%d are claimed", n, lo, hi-1)
}

// Release gives the window back; releasing twice is harmless.
func (w *Window) Release() {
	windows.Lock()
	defer windows.Unlock()
	if w.claim == nil {
		return
	}
	delete(windows.owned, w.Lo-1)
	_ = w.claim.Close()
	w.claim = nil
}

// WindowSpan is [lo, hi) for windows on this host: above
// ValidatePortRange's excluded range, the ephemeral range and Take's span.
func WindowSpan() (lo, hi int) { return windowSpan() }

func windowSpan() (lo, hi int) {
	_, last := ephemeralRange()
	_, takeHi := span()
	return windowSpanFor(last, takeHi)
}

// windowSpanFor is windowSpan for a host whose ephemeral range ends at
// ephemeralLast and whose Take span ends before takeHi.
func windowSpanFor(ephemeralLast, takeHi int) (lo, hi int) {
	return max(windowLowest, ephemeralLast+1, takeHi), 65536
}
