package realengine

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/mooncake-faultlab/faultlab/engine"
)

// EtcdBinary is Debian's etcd-server (etcd 3.4 on bookworm), the etcd the
// real engine runs for topology metadata: etcd.
const EtcdBinary = "/usr/bin/etcd"

// etcdPath finds etcd: EtcdBinary, else PATH.
func etcdPath() (string, error) {
	if p, err := exec.LookPath(EtcdBinary); err == nil {
		return p, nil
	}
	if p, err := exec.LookPath("etcd"); err == nil {
		return p, nil
	}
	return "", engine.Unsupportedf("metadata etcd needs an etcd server: %s not found (apt-get install etcd-server)", EtcdBinary)
}

// launchEtcd starts a one-member etcd cluster on loopback with its data in
// the world's temp dir (so a restart keeps the keys, as in production),
// and puts toxiproxy in front of its client port as link "metadata".
func (w *World) launchEtcd(ctx context.Context) error {
	bin, err := etcdPath()
	if err != nil {
		return err
	}
	ports, err := freePorts(2)
	if err != nil {
		return err
	}
	client := "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0]))
	peer := "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[1]))
	args := []string{
		"--name=faultlab", "--data-dir=" + filepath.Join(w.dir, "etcd"),
		"--listen-client-urls=" + client, "--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer, "--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=faultlab=" + peer, "--initial-cluster-state=new",
		"--logger=zap", "--log-level=error",
	}
	s := &server{role: "metadata", ports: map[string]int{"client": ports[0], "peer": ports[1]},
		spec: procSpec{Name: "etcd", Source: "metadata", Path: bin, Args: args,
			Env: w.env(nil), Dir: w.dir, Trace: w.spec.Trace, Logger: w.log},
		ready: func(ctx context.Context, p *proc) error { return waitHTTP(ctx, client+"/health", p) }}
	if err := w.startServer(ctx, s); err != nil {
		return err
	}
	if _, err := w.inj.Link("metadata", net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0]))); err != nil {
		return fmt.Errorf("real engine: %w", err)
	}
	s.links = append(s.links, "metadata")
	return nil
}
