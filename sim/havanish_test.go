package sim

import (
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/models/client"
)

// A call to an address that drops SYNs costs client_pool's four connects,
// each the connect timeout, plus what is left of the 1 s reconnect wait
// (real 0.3.13.post1: 120.0 s at the default 30 s, 4.0 s at 1000 ms).
func TestUnreachableCost(t *testing.T) {
	for _, c := range []struct {
		connect, want time.Duration
	}{
		{30 * time.Second, 120 * time.Second},
		{time.Second, 4 * time.Second},
		{500 * time.Millisecond, 4133 * time.Millisecond},
		{0, client.RefusedPoolCost},
	} {
		if got := unreachableCost(client.Timeouts{Connect: c.connect, Request: 30 * time.Second}); got != c.want {
			t.Errorf("unreachableCost(connect %v) = %v, want %v", c.connect, got, c.want)
		}
	}
}
