package sim

import (
	"context"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/client"
	"github.com/mooncake-faultlab/faultlab/models/master"
)

// haVanish is process action vanish on HA master i: SIGKILL (haKill:
// pooled connections read end of file, the lease runs out), and from
// then on its address drops every SYN, as a deleted pod's IP does
// (Mooncake#3740): a call there is unreachableCall until the master
// starts again.
func (w *World) haVanish(i int) {
	if i < 0 {
		return
	}
	w.haKill(i)
	w.ha.ms[i].vanished = true
}

// vanished reports that addr is a vanished master's.
func (h *haPair) vanished(addr string) bool {
	for _, m := range h.ms {
		if m.vanished && sameAddr(addr, m.addr) {
			return true
		}
	}
	return false
}

// unreachableCost is one call's cost to an address that drops SYNs:
// coro_io::client_pool::reconnect makes poolConnects connects, each
// waiting out the connect timeout (MC_RPC_CONNECT_TIMEOUT_MS, 30 s by
// default: master_client.h v0.3.12+) and then reconnect_wait_time (1 s)
// less what the connect cost, × U(1, 1.2) (poolConnectGap's mean), if
// anything is left, and then gives up. Real 0.3.12.post1 and 0.3.13.post1:
// the blocked ping returned 120.0 s after it began; with
// MC_RPC_CONNECT_TIMEOUT_MS=1000, 4.0 s (docs/REAL-FINDINGS.md §82).
func unreachableCost(t client.Timeouts) time.Duration {
	c := max(t.Connect, 0)
	per := c
	if c < reconnectWait {
		per += time.Duration(float64(reconnectWait-c) * float64(poolConnectGap) / float64(reconnectWait))
	}
	return poolConnects * per
}

// reconnectWait is client_pool's reconnect_wait_time (pool_config's
// default; MasterClient leaves it).
const reconnectWait = time.Second

// unreachableCost is this stub's call's: the ping thread's fails after
// Profile.HAPingUnreachableCost where a release sets it (0.3.14).
func (s *masterStub) unreachableCost() time.Duration {
	if d := s.w.profile.HAPingUnreachableCost; d > 0 && s.conn == "ping" {
		return d
	}
	return unreachableCost(s.t)
}

// unreachableCall waits d on clock and fails as the pool does. A master
// started again during the wait is not seen: the connects in flight were
// sent to the silent address.
func unreachableCall(ctx context.Context, clock engine.Clock, op string, d time.Duration) error {
	if err := clock.Sleep(ctx, d); err != nil {
		return err
	}
	return &master.RPCError{Kind: master.Unreachable, Op: op, After: d}
}
