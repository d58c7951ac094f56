package fakeengine

import (
	"time"
)

// storeEtcdIdle implements client.Deps.StoreEtcdIdle (sim's
// Process.storeEtcdIdle): goAway runs once, under the gate, `after` of
// Mooncake time later (scaled), unless the process is gone by then. It is
// called from a model call, under the gate.
func (p *Process) storeEtcdIdle(after time.Duration, goAway func()) {
	if p.etcdIdle {
		return
	}
	p.etcdIdle = true
	p.wg.Add(1) // from a foreground call: Close waits only after the steps
	go func() {
		defer p.wg.Done()
		if sleepWall(p.ctx, p.w.scale.wall(after)) != nil {
			return
		}
		p.w.gate.Lock()
		defer p.w.gate.Unlock()
		if p.dead == nil && p.ctx.Err() == nil {
			goAway()
		}
	}()
}
