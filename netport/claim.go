package netport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"
	"time"
)

// MaxClaimed is the widest port range ClaimPorts holds: a scenario that
// fixes its transfer engines' range to a few ports (a one-port range,
// a remedy's eight) meets itself when two runs of it overlap (the suites'
// catalog spec and SGLang comparison, `run -j 2` over two releases); a
// wide range gives Mooncake's random draw room and needs no claim.
const MaxClaimed = 64

// Claim holds ports host-wide until Release: each port's claim is an
// abstract unix socket ("@faultlab-port-N"), which the kernel frees when
// the holder exits, so a killed run leaves nothing behind.
type Claim struct{ ls []net.Listener }

// ClaimPorts claims ports lo..hi (in any order; at most MaxClaimed) for
// this run, waiting while another run holds any of them, until ctx ends.
// It takes all or none, in ascending order, so two runs claiming
// overlapping ranges never hold a part each.
func ClaimPorts(ctx context.Context, lo, hi int) (*Claim, error) {
	lo, hi = min(lo, hi), max(lo, hi)
	if lo < 1 || hi > 65535 || hi-lo+1 > MaxClaimed {
		return nil, fmt.Errorf("netport: claim %d-%d: a range of 1 to %d ports within 1-65535", lo, hi, MaxClaimed)
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		c, err := tryClaim(lo, hi)
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, syscall.EADDRINUSE) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("netport: ports %d-%d stayed claimed by another run: %w", lo, hi, context.Cause(ctx))
		case <-tick.C:
		}
	}
}

func tryClaim(lo, hi int) (*Claim, error) {
	c := &Claim{}
	for p := lo; p <= hi; p++ {
		l, err := claimPort(p)
		if err != nil {
			c.Release()
			return nil, fmt.Errorf("netport: claim port %d: %w", p, err)
		}
		c.ls = append(c.ls, l)
	}
	return c, nil
}

// claimPort claims p host-wide until the listener closes or the process
// ends; it fails with EADDRINUSE while another holds p.
func claimPort(p int) (net.Listener, error) {
	return net.Listen("unix", "@faultlab-port-"+strconv.Itoa(p))
}

// Release gives the ports back; releasing twice is harmless.
func (c *Claim) Release() {
	for _, l := range c.ls {
		_ = l.Close()
	}
	c.ls = nil
}
