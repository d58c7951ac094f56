package sim

import (
	"context"

	"github.com/mooncake-faultlab/faultlab/sim/client"
	"github.com/mooncake-faultlab/faultlab/sim/kernel"
)

// heartbeat drives one client's ping thread as kernel events.
type heartbeat struct {
	rc *client.RealClient
	dc *client.DummyClient
	ev *kernel.Event
}

// watch schedules heartbeats for a client whose ping thread runs.
func (w *World) watch(rc *client.RealClient, dc *client.DummyClient) {
	for _, b := range w.beats {
		if (rc != nil && b.rc == rc) || (dc != nil && b.dc == dc) {
			w.reschedule(b)
			return
		}
	}
	b := &heartbeat{rc: rc, dc: dc}
	w.beats = append(w.beats, b)
	w.reschedule(b)
}

func (w *World) reschedule(b *heartbeat) {
	if b.ev != nil || w.closed {
		return
	}
	switch {
	case b.rc != nil && b.rc.Pinging():
		// The ping thread pings at once when it starts.
		b.ev = w.k.After(0, "heartbeat", func() { w.beat(b) })
	case b.dc != nil && b.dc.Pinging():
		b.ev = w.k.After(client.PingInterval, "dummy heartbeat", func() { w.beat(b) })
	}
}

func (w *World) beat(b *heartbeat) {
	b.ev = nil
	ctx := context.Background()
	if b.rc != nil {
		if !b.rc.Pinging() {
			return
		}
		dc := &detachedClock{base: w.k.Now}
		node := b.rc.Node()
		stub := masterTransport{w: w, from: node, clock: dc}.Master(b.rc.MasterAddr(), b.rc.Timeouts())
		wait := b.rc.Heartbeat(ctx, stub)
		b.ev = w.k.After(dc.elapsed+wait, "heartbeat", func() { w.beat(b) })
		return
	}
	if !b.dc.Pinging() {
		return
	}
	b.dc.Heartbeat(ctx)
	b.ev = w.k.After(client.PingInterval, "dummy heartbeat", func() { w.beat(b) })
}
