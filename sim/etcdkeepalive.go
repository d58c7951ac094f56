package sim

import (
	"time"
)

// storeEtcdIdle implements client.Deps.StoreEtcdIdle for an SGLang-side
// process: its store etcd client, process-wide as EtcdHelper's Go client
// is, gets etcd's GOAWAY after `after` of virtual time, once, unless the
// process is gone by then. Later GOAWAYs (grpc-go doubles the keepalive
// time after this one) and a process stopped meanwhile are not modelled:
// real showed one line in 80 s (docs/REAL-FINDINGS.md §86).
func (p *Process) storeEtcdIdle(after time.Duration, goAway func()) {
	if p.etcdIdle != nil {
		return
	}
	p.etcdIdle = p.w.k.After(after, "store etcd goaway", func() {
		if p.dead != nil || p.w.closed {
			return
		}
		goAway()
	})
}
