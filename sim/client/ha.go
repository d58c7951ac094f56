package client

import (
	"context"
	"errors"
	"strings"

	"github.com/mooncake-faultlab/faultlab/sim/mlog"
)

// haPrefix marks a master_server_addr resolved through the HA master view.
const haPrefix = "etcd://"

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
	if err == nil && found {
		return strings.TrimSpace(string(v)), true
	}
	why := "key not found in etcd"
	if err != nil {
		why = err.Error()
	}
	c.logf(mlog.Error, "key=%s, error=%s", key, why)
	switch {
	case c.p.HABackend && err != nil:
		c.logf(mlog.Error, "Failed to read current master view: ETCD_OPERATION_ERROR")
	case c.p.HABackend:
		c.logf(mlog.Error, "No master is available in HA backend")
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
