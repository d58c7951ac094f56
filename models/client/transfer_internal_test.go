package client

import (
	"testing"
	"time"

	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// statusFrameTimeout reads MC_TCP_STATUS_TIMEOUT_SEC as tcp_transport.cpp's
// statusFrameTimeoutSec does: atoi, a value under 1 is 30 s.
func TestStatusFrameTimeout(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want time.Duration
	}{
		{nil, 30 * time.Second},
		{map[string]string{"MC_TCP_STATUS_TIMEOUT_SEC": "3"}, 3 * time.Second},
		{map[string]string{"MC_TCP_STATUS_TIMEOUT_SEC": "90s"}, 90 * time.Second},
		{map[string]string{"MC_TCP_STATUS_TIMEOUT_SEC": "0"}, 30 * time.Second},
		{map[string]string{"MC_TCP_STATUS_TIMEOUT_SEC": "-5"}, 30 * time.Second},
		{map[string]string{"MC_TCP_STATUS_TIMEOUT_SEC": "abc"}, 30 * time.Second},
	} {
		p, err := mooncake.ProfileFor("0.3.12.post1")
		if err != nil {
			t.Fatal(err)
		}
		c0 := &RealClient{d: Deps{Env: c.env}, p: p}
		if got := c0.statusFrameTimeout(); got != c.want {
			t.Errorf("MC_TCP_STATUS_TIMEOUT_SEC %v: %v, want %v", c.env, got, c.want)
		}
	}
}
