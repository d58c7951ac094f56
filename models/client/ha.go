package client

import (
	"time"

	"context"
	"errors"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"strings"

	"github.com/mooncake-faultlab/faultlab/models/mlog"
)

// haPrefix marks a master_server_addr resolved through the HA master view.
const haPrefix = "etcd://"

// HAWarmingPrefix begins the master view's value while a new leader warms
// up (mooncake.Profile.HAWarmingView; the 0.3.14 _store.so's string): no
// address, so clients wait for the published one.
const HAWarmingPrefix = "__mooncake_service_warming__:"

var errNoEtcd = errors.New("etcd client not initialized")

// masterFromView is Client::ConnectToMaster's HA branch: the master address
// is the value of the master view key in etcd (written by the elected
// mooncake_master --enable_ha). It fails without a leader ("key not
// found") and when etcd does not answer within the store etcd client's 5 s
// (EtcdStoreGetWrapper). Texts: real 0.3.9 and 0.3.13.post1
// (docs/REAL-FINDINGS.md §19). What happens after a leader change (the
// ping thread switching leaders) is not modelled.
func (c *RealClient) masterFromView(ctx context.Context, endpoints string) (string, bool) {
	key := c.p.MasterViewKey
	var (
		v     []byte
		found bool
		err   = errNoEtcd
	)
	if c.d.Etcd != nil {
		v, found, err = c.d.Etcd.Get(ctx, endpoints, key)
	}
	warming := c.p.HAWarmingView && strings.HasPrefix(string(v), HAWarmingPrefix)
	if err == nil && found && !warming {
		return strings.TrimSpace(string(v)), true
	}
	// A warming leader's view is taken as none (0.3.14's setup during a
	// leader's warmup is not measured).
	found = found && !warming
	why := "key not found in etcd"
	if err != nil {
		why = err.Error()
	}
	c.logf(mlog.Error, "key=%s, error=%s", key, why)
	if w := c.p.HAMasterReadyWaitSeconds; w > 0 && err != nil {
		// 0.3.14's discovery (real 0.3.14, etcd refused: after the 5 s).
		c.logf(mlog.Error, "Failed to discover a ready master view: ETCD_OPERATION_ERROR")
		return "", false
	} else if w > 0 {
		// 0.3.14 reads the view again and waits for a ready master (real
		// 0.3.14: the key line twice 4 ms apart, the failure 30 s after
		// the first read). A master elected during the wait is not
		// modelled: the wait runs to its end.
		c.logf(mlog.Error, "key=%s, error=%s", key, why)
		if err := c.d.Clock.Sleep(ctx, time.Duration(w)*time.Second); err != nil {
			return "", false
		}
		c.logf(mlog.Error, "No master became ready within %d seconds", w)
		return "", false
	}
	switch {
	case c.p.HABackend && err != nil:
		c.logf(mlog.Error, "Failed to read current master view: ETCD_OPERATION_ERROR")
	case c.p.HABackend:
		c.logf(mlog.Error, "No master is available in HA backend")
		c.storeEtcdIdle()
	case err != nil:
		c.logf(mlog.Error, "Failed to get master address due to etcd error")
	default:
		c.logf(mlog.Error, "No master is available")
	}
	if !c.p.HABackend {
		c.logf(mlog.Error, "Failed to get master address")
	}
	return "", false
}

// HA reports whether the master address came from the HA master view.
func (c *RealClient) HA() bool { return c.haEndpoints != "" && !c.closed }

// ReconnectPending reports that the ping thread reads the master view next
// (PingThreadMain after MaxPingFailCount failed pings, HA mode).
func (c *RealClient) ReconnectPending() bool { return c.haReconnect && c.Pinging() }

// Reconnect is PingThreadMain's HA branch after the failure threshold:
// read the master view (etcd through etcd), then connect to its leader
// (ms: a stub for addr, made by dial). It returns how long the thread
// sleeps before its next ping: 0 after a reconnect, PingInterval after a
// failure (the count stays over the threshold, so the next failed ping
// comes back here).
func (c *RealClient) Reconnect(ctx context.Context, etcd Etcd, dial func(addr string) master.Service) time.Duration {
	c.haReconnect = false
	v, found, err := etcd.Get(ctx, c.haEndpoints, c.p.MasterViewKey)
	if err != nil || !found {
		why := "key not found in etcd"
		if err != nil {
			why = err.Error()
		}
		c.logf(mlog.Error, "key=%s, error=%s", c.p.MasterViewKey, why)
		switch {
		case c.p.HABackend && err != nil:
			c.logf(mlog.Error, "Failed to get new master view: %s", mooncake.ETCD_OPERATION_ERROR.Name())
		case c.p.HABackend:
			c.logf(mlog.Warning, "No active master view is published yet")
		case err != nil:
			c.logf(mlog.Error, "Failed to get master address due to etcd error")
			c.logf(mlog.Error, "Failed to get new master view: %s", mooncake.ETCD_OPERATION_ERROR.Name())
		default:
			c.logf(mlog.Error, "No master is available")
			c.logf(mlog.Error, "Failed to get new master view: %s", mooncake.ETCD_KEY_NOT_EXIST.Name())
		}
		return PingInterval
	}
	addr := strings.TrimSpace(string(v))
	if c.p.HAWarmingView && strings.HasPrefix(addr, HAWarmingPrefix) {
		// The key exists (no etcd line): a leader warming up (real 0.3.14).
		c.logf(mlog.Warning, "No active master view is published yet")
		return PingInterval
	}
	if err := c.SwitchLeader(ctx, addr, dial(addr)); err != nil {
		c.logf(mlog.Error, "Failed to connect to master %s: %s", addr, master.Code(err, c.p).Name())
		return PingInterval
	}
	c.logf(mlog.Info, "Reconnected to master %s", addr)
	c.pingFails = 0
	return 0
}

// SwitchLeader is MasterClient::Connect(addr) as Client::SwitchLeader
// (v0.3.10+ leader monitor) and the v0.3.9 ping thread call it: the
// client's pool moves to addr first, then ServiceReady (and the version
// check) must answer. Nothing to do when addr is already the master and
// the last ping succeeded.
func (c *RealClient) SwitchLeader(ctx context.Context, addr string, ms master.Service) error {
	if addr == c.msAddr && c.pingOK {
		return nil
	}
	c.msAddr, c.ms = addr, c.d.Master.Master(addr, c.t)
	v, err := ms.ServiceReady(ctx)
	if err != nil {
		c.rpcLog(err)
		c.pingOK = false
		return err
	}
	if c.p.MasterVersionCheck && v != master.RPCVersion {
		c.logf(mlog.Error, "Version mismatch: server=%s client=%s", v, master.RPCVersion)
		c.pingOK = false
		return mooncake.INVALID_VERSION
	}
	c.pingOK = true
	return nil
}

// Etcd is the etcd client the HA view is read through.
type Etcd interface {
	Get(ctx context.Context, endpoints, key string) ([]byte, bool, error)
}

// ViewDeleted is the v0.3.10+ leader monitor seeing the view key vanish
// (the etcd wrapper logs the failed read; real 0.3.13.post1).
func (c *RealClient) ViewDeleted() {
	c.logf(mlog.Error, "key=%s, error=key not found in etcd", c.p.MasterViewKey)
}

// SwitchFailed is LeaderMonitorThreadMain's warning after SwitchLeader
// failed (logged when the attempt ends).
func (c *RealClient) SwitchFailed(addr string, err error) {
	c.logf(mlog.Warning, "Failed to switch to leader %s: %s", addr, master.Code(err, c.p).Name())
}
