package sim

import (
	"context"
	"errors"
	"strings"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/metadata"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/sim/netsim"
)

// EtcdAddr is the etcd metadata service's client endpoint in sim worlds
// (topology metadata: etcd). {{metadata}} is "etcd://" + EtcdAddr,
// {{etcd}} the bare endpoint (parseConnectionString makes it etcd too).
const EtcdAddr = "127.0.0.1:2379"

// errEtcdDeadline is clientv3's error when no connection became ready
// within the wrapper's 5 s context (refused, blackholed, paused).
var errEtcdDeadline = errors.New("context deadline exceeded")

// metadataEtcd implements te.MetadataEtcd for one node over netsim.
type metadataEtcd struct {
	w     *World
	from  string
	clock engine.Clock
}

var _ te.MetadataEtcd = metadataEtcd{}

// op runs fn against the etcd model when the request gets through; every
// failure waits out the wrapper's context (clientv3 blocks until a
// connection is ready), as the real wheels do.
func (m metadataEtcd) op(ctx context.Context, endpoints string, req int64, fn func(s *metadata.Etcd)) error {
	deadline := func() error {
		if err := clockFor(ctx, m.clock).Sleep(ctx, te.EtcdOpTimeout); err != nil {
			return err
		}
		return errEtcdDeadline
	}
	if m.w.etcd == nil || m.w.metadataState == stopped || !hasEndpoint(endpoints, EtcdAddr) {
		return deadline()
	}
	out := m.w.net.Exchange(m.from, "metadata", req, 64)
	if out.Verdict != netsim.Pass || m.w.metadataState == paused || out.Delay >= te.EtcdOpTimeout {
		return deadline()
	}
	if err := clockFor(ctx, m.clock).Sleep(ctx, out.Delay); err != nil {
		return err
	}
	fn(m.w.etcd)
	return nil
}

func (m metadataEtcd) Put(ctx context.Context, endpoints, key string, value []byte) error {
	return m.op(ctx, endpoints, int64(len(key)+len(value)), func(s *metadata.Etcd) { s.Put(key, value) })
}

func (m metadataEtcd) Get(ctx context.Context, endpoints, key string) (v []byte, found bool, err error) {
	err = m.op(ctx, endpoints, int64(len(key)), func(s *metadata.Etcd) { v, found = s.Get(key) })
	return
}

func (m metadataEtcd) Delete(ctx context.Context, endpoints, key string) error {
	return m.op(ctx, endpoints, int64(len(key)), func(s *metadata.Etcd) { s.Delete(key) })
}

// hasEndpoint: the wrapper splits endpoints on ',' and ';'.
func hasEndpoint(endpoints, addr string) bool {
	for _, ep := range strings.FieldsFunc(endpoints, func(r rune) bool { return r == ',' || r == ';' }) {
		ep = strings.TrimPrefix(strings.TrimSpace(ep), "http://")
		if sameAddr(ep, addr) {
			return true
		}
	}
	return false
}

// etcdProcess performs a process action on etcd: its data survives stop,
// start and restart (it lives in etcd's data dir).
func (w *World) etcdProcess(action string) {
	switch action {
	case "stop":
		w.metadataState = stopped
	case "start", "restart":
		w.metadataState = running
	default:
		w.metadataState.pauseResume(action)
	}
}

// pauseResume applies SIGSTOP ("pause") to a running server and SIGCONT
// ("resume") to a paused one; other actions are the caller's.
func (s *procState) pauseResume(action string) {
	switch {
	case action == "pause" && *s == running:
		*s = paused
	case action == "resume" && *s == paused:
		*s = running
	}
}

// Etcd exposes the etcd model (nil unless topology metadata is etcd):
// tests and tools read and seed keys, e.g. an HA master view.
func (w *World) Etcd() *metadata.Etcd { return w.etcd }
