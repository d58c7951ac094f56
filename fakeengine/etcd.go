package fakeengine

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/tmpdir"
)

// etcdServer is a real one-member etcd (etcd's own server, embedded) that
// serves topology metadata: etcd. Its data dir outlives stop/start, as a
// production etcd's does.
type etcdServer struct {
	dir          string
	client, peer url.URL
	e            *embed.Etcd
}

// etcdReadyTimeout bounds embedded etcd's start (one member elects itself
// in about a second).
const etcdReadyTimeout = 30 * time.Second

// newEtcdServer picks ports on host (loopback, or the harness's address on
// a container world's network) and a data dir; Start serves.
func newEtcdServer(host string) (*etcdServer, error) {
	dir, err := tmpdir.Make("faultlab-etcd-")
	if err != nil {
		return nil, fmt.Errorf("fake engine: etcd data dir: %w", err)
	}
	ports := make([]int, 2)
	for i := range ports {
		l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("fake engine: etcd port: %w", err)
		}
		ports[i] = l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
	}
	u := func(p int) url.URL { return url.URL{Scheme: "http", Host: net.JoinHostPort(host, strconv.Itoa(p))} }
	return &etcdServer{dir: dir, client: u(ports[0]), peer: u(ports[1])}, nil
}

// Addr is the client endpoint (host:port).
func (s *etcdServer) Addr() string { return s.client.Host }

// Up reports whether the server runs.
func (s *etcdServer) Up() bool { return s.e != nil }

// Start serves on the same ports and data dir as before.
func (s *etcdServer) Start(ctx context.Context) error {
	if s.e != nil {
		return nil
	}
	cfg := embed.NewConfig()
	cfg.Name = "faultlab"
	cfg.Dir = filepath.Join(s.dir, "data")
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{s.client}, []url.URL{s.client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{s.peer}, []url.URL{s.peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.LogLevel = "error"
	cfg.LogOutputs = []string{"/dev/null"}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return fmt.Errorf("fake engine: start etcd: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return fmt.Errorf("fake engine: etcd: %w", err)
	case <-ctx.Done():
		e.Close()
		return fmt.Errorf("fake engine: etcd not ready: %w", ctx.Err())
	case <-time.After(etcdReadyTimeout):
		e.Close()
		return fmt.Errorf("fake engine: etcd not ready after %s", etcdReadyTimeout)
	}
	s.e = e
	return nil
}

// Stop stops serving; the data stays.
func (s *etcdServer) Stop() {
	if s.e != nil {
		s.e.Close()
		s.e = nil
	}
}

// Close stops and removes the data dir.
func (s *etcdServer) Close() error {
	s.Stop()
	return os.RemoveAll(s.dir)
}

// etcdClient implements te.MetadataEtcd as Mooncake's libetcd_wrapper
// does, with etcd's own client: clientv3 with a 5 s dial timeout and a 5 s
// context per operation (both scaled to wall time), endpoints dialled
// through this node's proxy for the metadata link.
type etcdClient struct{ n nodeNet }

var _ te.MetadataEtcd = etcdClient{}

func (c etcdClient) do(ctx context.Context, endpoints string, fn func(ctx context.Context, cl *clientv3.Client) error) error {
	var eps []string
	for _, ep := range strings.FieldsFunc(endpoints, func(r rune) bool { return r == ',' || r == ';' }) {
		if ep = strings.TrimSpace(ep); ep != "" {
			eps = append(eps, c.n.dialAddr(strings.TrimPrefix(ep, "http://")))
		}
	}
	if len(eps) == 0 {
		return fmt.Errorf("no valid endpoints provided")
	}
	timeout := c.n.w.scale.wall(te.EtcdOpTimeout)
	var err error
	c.n.w.gate.wait(func() {
		var cl *clientv3.Client
		cl, err = clientv3.New(clientv3.Config{Endpoints: eps, DialTimeout: timeout, Logger: zap.NewNop(), Context: ctx})
		if err != nil {
			return
		}
		defer cl.Close()
		octx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		err = fn(octx, cl)
		if err != nil && octx.Err() != nil && ctx.Err() == nil {
			// What the wrapper's errMsg says when no connection got ready.
			err = context.DeadlineExceeded
		}
	})
	return err
}

func (c etcdClient) Put(ctx context.Context, endpoints, key string, value []byte) error {
	return c.do(ctx, endpoints, func(ctx context.Context, cl *clientv3.Client) error {
		_, err := cl.Put(ctx, key, string(value))
		return err
	})
}

func (c etcdClient) Get(ctx context.Context, endpoints, key string) (v []byte, found bool, err error) {
	err = c.do(ctx, endpoints, func(ctx context.Context, cl *clientv3.Client) error {
		r, err := cl.Get(ctx, key)
		if err == nil && len(r.Kvs) > 0 {
			v, found = r.Kvs[0].Value, true
		}
		return err
	})
	return
}

func (c etcdClient) Delete(ctx context.Context, endpoints, key string) error {
	return c.do(ctx, endpoints, func(ctx context.Context, cl *clientv3.Client) error {
		_, err := cl.Delete(ctx, key)
		return err
	})
}

// launchEtcd starts the world's etcd; its client endpoint is the metadata
// party every node's "metadata" link proxies.
func (w *World) launchEtcd(ctx context.Context) error {
	s, err := newEtcdServer(w.bindHost())
	if err != nil {
		return err
	}
	w.etcd = s
	if err := s.Start(ctx); err != nil {
		return err
	}
	w.metaAddr, w.metaUp = s.Addr(), true
	return nil
}
