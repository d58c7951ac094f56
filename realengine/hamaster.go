package realengine

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// roleMasterStandby is the second master of topology master.ha; "master"
// is the first, started alone so that it wins the first election.
const roleMasterStandby = "master-standby"

// launchHA starts etcd, then two mooncake_master --enable_ha=true against
// it (each on its own ports). The first is ready once it serves (elected,
// then 5 s of warmup before its RPC port opens); the second only
// campaigns, so it is ready once it has lived for standbySettle.
func (w *World) launchHA(ctx context.Context) error {
	if w.spec.Metadata != "etcd" {
		return fmt.Errorf("real engine: master ha needs metadata etcd, not %s", w.spec.Metadata)
	}
	if err := w.launchEtcd(ctx); err != nil {
		return err
	}
	etcdAddr, err := w.inj.Addr("metadata")
	if err != nil {
		return fmt.Errorf("real engine: %w", err)
	}
	ha := map[string]string{"enable_ha": "true", "etcd_endpoints": etcdAddr}
	for _, role := range []string{"master", roleMasterStandby} {
		bin, args, rpc, metrics, _, err := w.masterArgs(ctx, ha)
		if err != nil {
			return err
		}
		rpcAddr := net.JoinHostPort("127.0.0.1", strconv.Itoa(rpc))
		ready := func(ctx context.Context, p *proc) error { return waitTCP(ctx, rpcAddr, p) }
		if role == roleMasterStandby {
			ready = standbyReady
		}
		s := &server{role: role, ports: map[string]int{"rpc": rpc, "metrics": metrics}, ready: ready,
			spec: procSpec{Name: "mooncake_master", Source: role, Path: bin, Args: args, Env: w.env(nil), Dir: w.dir, Trace: w.spec.Trace, Logger: w.log}}
		if err := w.startServer(ctx, s); err != nil {
			return err
		}
		// Started again by a fault's heal, a master only campaigns (the
		// other one leads by then): waiting for its port would time out.
		w.mu.Lock()
		s.ready = standbyReady
		w.mu.Unlock()
	}
	return nil
}

// standbySettle: a standby master has no port to probe (it opens its RPC
// port only once elected); one second alive means it connected to etcd
// and campaigns (a bad flag or endpoint exits at once).
const standbySettle = time.Second

func standbyReady(ctx context.Context, p *proc) error {
	select {
	case <-p.exited:
		return fmt.Errorf("process exited (%s); last lines: %v", p.ExitDescription(), p.Recent())
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(standbySettle):
		return nil
	}
}

// leaderRole resolves process target master-leader: the master whose
// rpc address is the value of the master view key in etcd.
func (w *World) leaderRole(ctx context.Context) (string, error) {
	if w.spec.Master == nil || !w.spec.Master.HA {
		return "", fmt.Errorf("real engine: target master-leader needs topology master.ha")
	}
	prof, err := mooncake.ProfileFor(w.spec.Version)
	if err != nil {
		return "", err
	}
	w.mu.Lock()
	ep := net.JoinHostPort("127.0.0.1", strconv.Itoa(w.servers["metadata"].ports["client"]))
	w.mu.Unlock()
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, DialTimeout: 2 * time.Second})
	if err != nil {
		return "", fmt.Errorf("real engine: master-leader: etcd: %w", err)
	}
	defer cli.Close()
	gctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	resp, err := cli.Get(gctx, prof.MasterViewKey)
	if err != nil {
		return "", fmt.Errorf("real engine: master-leader: read %s: %w", prof.MasterViewKey, err)
	}
	if len(resp.Kvs) == 0 {
		return "", fmt.Errorf("real engine: master-leader: no leader (%s is not set)", prof.MasterViewKey)
	}
	view := strings.TrimSpace(string(resp.Kvs[0].Value))
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, role := range []string{"master", roleMasterStandby} {
		if s, ok := w.servers[role]; ok && view == net.JoinHostPort("127.0.0.1", strconv.Itoa(s.ports["rpc"])) {
			return role, nil
		}
	}
	return "", fmt.Errorf("real engine: master-leader: the view %q names no master of this world", view)
}

// leaderAction acts on the master that leads when the fault fires (its
// undo acts on that same process).
func (w *World) leaderAction(p faults.ProcessPrimitive) inject {
	f := p.Fault
	return func(ctx context.Context) (func(context.Context) error, error) {
		role, err := w.leaderRole(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		s, err := w.server(role, f)
		if err != nil {
			return nil, err
		}
		w.log.Info("real engine: master-leader", "role", role, "action", p.Action)
		return w.processAction(s, p.Action)(ctx)
	}
}
