package client

import (
	"time"

	"github.com/mooncake-faultlab/faultlab/models/mlog"
)

// StoreEtcdGoAwayAfter is how long after its last exchange a store etcd
// client with keepalive pings and no stream open gets etcd's GOAWAY
// ENHANCE_YOUR_CALM "too_many_pings" (mooncake.Profile.
// StoreEtcdPingsWithoutStream): it pings every storeDialKeepAliveTime
// (10 s, etcd_wrapper.go v0.3.12.post1:90) and etcd's gRPC server, which
// permits no pings without a stream, closes the transport at its third
// strike. Real 0.3.12.post1 against etcd 3.4.23: 30.0 s after setup's
// master view read, three runs (docs/REAL-FINDINGS.md §86).
const StoreEtcdGoAwayAfter = 30 * time.Second

// TooManyPingsLine is grpc-go's default logger's text (its ERROR level,
// printed with no GRPC_GO_LOG_* set) when the client transport reads that
// GOAWAY (http2_client.go handleGoAway); the real engine strips the
// logger's date prefix as it strips glog's.
const TooManyPingsLine = `[transport] Client received GoAway with error code ENHANCE_YOUR_CALM and debug data equal to ASCII "too_many_pings".`

// storeEtcdIdle is called where the store's etcd client stays connected
// with no stream: the master view read answered "key not found", so the
// client has no leader to watch and Client::Create fails, while the
// process-wide Go client (EtcdHelper's) stays dialled. Only at releases
// whose client pings without a stream; the engine schedules the GOAWAY.
func (c *RealClient) storeEtcdIdle() {
	if !c.p.StoreEtcdPingsWithoutStream || c.d.StoreEtcdIdle == nil {
		return
	}
	log := c.d.Log
	c.d.StoreEtcdIdle(StoreEtcdGoAwayAfter, func() { log.Log(mlog.Error, TooManyPingsLine) })
}
