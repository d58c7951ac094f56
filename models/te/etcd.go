package te

import (
	"context"
	"errors"

	"github.com/mooncake-faultlab/faultlab/models/mlog"
)

// EtcdStoragePlugin (transfer_metadata_plugin.cpp, libetcd_wrapper flavour,
// identical texts v0.3.0 … main): every failure is logged as
// "EtcdStoragePlugin: unable to <op> <key> in <endpoints>: <errMsg>" and
// reported as false. etcd has no duplicate check: a Put overwrites, so two
// transfer engines with one local_hostname both publish (the HTTP server
// answers the second rpc_meta PUT with 400).

var errEtcdUnavailable = errors.New("etcd client not initialized")

func (e *Engine) etcdPut(ctx context.Context, key string, body []byte) bool {
	err := errEtcdUnavailable
	if e.cfg.Etcd != nil {
		err = e.cfg.Etcd.Put(ctx, e.etcd, key, body)
	}
	if err != nil {
		e.logf(mlog.Error, "EtcdStoragePlugin: unable to set %s in %s: %s", key, e.etcd, err)
		return false
	}
	return true
}

func (e *Engine) etcdDelete(ctx context.Context, key string) bool {
	err := errEtcdUnavailable
	if e.cfg.Etcd != nil {
		err = e.cfg.Etcd.Delete(ctx, e.etcd, key)
	}
	if err != nil {
		e.logf(mlog.Error, "EtcdStoragePlugin: unable to remove %s in %s: %s", key, e.etcd, err)
		return false
	}
	return true
}

// etcdGet is EtcdStoragePlugin::get (libetcd_wrapper): a missing key is a
// failure without a log line (json_data stays nullptr).
func (e *Engine) etcdGet(ctx context.Context, key string) ([]byte, bool) {
	err := errEtcdUnavailable
	var v []byte
	found := false
	if e.cfg.Etcd != nil {
		v, found, err = e.cfg.Etcd.Get(ctx, e.etcd, key)
	}
	if err != nil {
		e.logf(mlog.Error, "EtcdStoragePlugin: unable to get %s in %s: %s", key, e.etcd, err)
		return nil, false
	}
	return v, found
}
