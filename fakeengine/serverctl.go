package fakeengine

import (
	"context"
	"fmt"
	"net"
	"strconv"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/fakeengine/servers"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/metadata"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/rng"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

// processLocked stops, starts, restarts, pauses or resumes a server.
// A started master is a fresh model (mooncake_master keeps no state
// across restarts): clients get NEED_REMOUNT on their next ping.
func (w *World) processLocked(ctx context.Context, target, action string) error {
	if served, err := w.servedControl(ctx, target, action); served {
		return err // in its container (incontainers.go)
	}
	switch target {
	case "master":
		if w.spec.Metadata == "master" {
			// The embedded metadata server lives and dies with the master.
			if err := w.processLocked(ctx, "metadata", action); err != nil {
				return err
			}
		}
		switch action {
		case "stop":
			return w.stopMasterLocked()
		case "start":
			return w.startMasterLocked(ctx)
		case "restart":
			if err := w.stopMasterLocked(); err != nil {
				return err
			}
			return w.startMasterLocked(ctx)
		case "pause":
			if w.masterUp {
				w.masterSrv.Pause()
				if w.masterSrv6 != nil {
					w.masterSrv6.Pause()
				}
			}
		case "resume":
			if w.masterUp {
				w.masterSrv.Resume()
				if w.masterSrv6 != nil {
					w.masterSrv6.Resume()
				}
			}
		}
	case "client":
		switch action {
		case "stop":
			return w.stopClientLocked()
		case "start":
			return w.startClientLocked(ctx)
		case "restart":
			if err := w.stopClientLocked(); err != nil {
				return err
			}
			return w.startClientLocked(ctx)
		case "pause":
			if w.client.up {
				w.client.srv.Pause()
			}
		case "resume":
			if w.client.up {
				w.client.srv.Resume()
			}
		}
	case "metadata":
		switch action {
		case "stop":
			return w.stopMetaLocked()
		case "start":
			return w.startMetaLocked(ctx)
		case "restart":
			if err := w.stopMetaLocked(); err != nil {
				return err
			}
			return w.startMetaLocked(ctx)
		case "pause":
			w.metaHandler.Pause()
		case "resume":
			w.metaHandler.Resume()
		}
	}
	return nil
}

func (w *World) stopMasterLocked() error {
	if !w.masterUp {
		return nil
	}
	w.masterUp = false
	if err := w.masterSrv.Close(); err != nil {
		return fmt.Errorf("fake engine: stop master: %w", err)
	}
	if w.masterSrv6 != nil {
		srv := w.masterSrv6
		w.masterSrv6 = nil
		if err := srv.Close(); err != nil {
			return fmt.Errorf("fake engine: stop master: %w", err)
		}
	}
	return nil
}

func (w *World) startMasterLocked(ctx context.Context) error {
	if w.masterUp {
		return nil
	}
	cfg := w.masterModel.Config()
	switch w.masterMetadataStart(cfg) {
	case master.MetadataAborts:
		return nil // down again, its ports kept
	case master.MetadataUnchecked:
		w.metaUnbound = true
		w.metaHandler.Pause()
	}
	if w.masterAdminStart(cfg) == master.AdminExits {
		return nil // down again, its ports kept
	}
	w.gate.Lock()
	w.masterModel = w.newMaster(cfg)
	w.gate.Unlock()
	// Same port again, so every proxy's upstream stays valid.
	return w.startMaster(ctx, w.masterAddr)
}

// dropHeldMetadataLocked ends the holder's part of an unbound metadata
// port (metaUnbound): the paused handler, whose held requests the holder
// never answered, is replaced by a fresh one, and released into its own
// store, which nothing reads again.
func (w *World) dropHeldMetadataLocked() {
	old := w.metaHandler
	w.metaHandler = servers.NewMetadataHandler(w.newMetadata())
	w.metaUnbound = false
	old.Resume()
}

// masterMetadataStart plays the embedded HTTP metadata server's start of
// a master of cfg (metadata: master) on its fixed port, which another
// process may hold (its lines in the trace).
func (w *World) masterMetadataStart(cfg master.Config) master.MetadataStart {
	w.metaUnbound = false
	ms := w.spec.Master
	if w.spec.Metadata != "master" || ms == nil || ms.MetadataPort == 0 {
		return master.MetadataServes
	}
	w.netMu.Lock()
	taken := w.held[ms.MetadataPort]
	w.netMu.Unlock()
	return master.StartHTTPMetadata(cfg, ms.MetadataPort, taken, mlog.Trace{T: w.trace, Source: "master"})
}

// masterAdminStart plays the admin HTTP server's start of a master of cfg
// on its fixed port (topology.master.metrics_port), which another process
// may hold (its lines in the trace).
func (w *World) masterAdminStart(cfg master.Config) master.AdminStart {
	ms := w.spec.Master
	if ms == nil || ms.MetricsPort == 0 {
		return master.AdminServes
	}
	w.netMu.Lock()
	taken := w.held[ms.MetricsPort]
	w.netMu.Unlock()
	return master.StartAdmin(cfg, ms.MetricsPort, taken, mlog.Trace{T: w.trace, Source: "master"})
}

func (w *World) stopMetaLocked() error {
	if !w.metaUp {
		return nil
	}
	if w.etcd != nil {
		w.metaUp = false
		w.etcd.Stop()
		return nil
	}
	w.metaUp = false
	if err := w.metaSrv.Close(); err != nil {
		return fmt.Errorf("fake engine: stop metadata: %w", err)
	}
	return w.closeMeta6()
}

func (w *World) closeMeta6() error {
	if w.metaSrv6 == nil {
		return nil
	}
	srv := w.metaSrv6
	w.metaSrv6 = nil
	if err := srv.Close(); err != nil {
		return fmt.Errorf("fake engine: stop metadata on [::1]: %w", err)
	}
	return nil
}

func (w *World) startMetaLocked(ctx context.Context) error {
	if w.metaUp {
		return nil
	}
	if w.etcd != nil {
		// etcd keeps its keys across a restart (its data dir).
		if err := w.etcd.Start(ctx); err != nil {
			return err
		}
		w.metaUp = true
		return nil
	}
	if w.metadataRefused() {
		return nil // it exited at start: nothing listens
	}
	w.metaHandler.Reset() // the store is in memory: a restart loses it
	return w.startMetadata(ctx, w.metaAddr)
}

// metadataRefused plays the wheel's Python metadata server's start check
// (metadata: http): from 0.3.14 it refuses a host that is not the
// loopback without a token, prints its exception and exits.
func (w *World) metadataRefused() bool {
	if w.spec.Metadata != "http" {
		return false
	}
	_, port, _ := net.SplitHostPort(w.metaAddr)
	p, _ := strconv.Atoi(port)
	lines := metadata.StartLines(w.profile, w.spec.MetadataHost, p, w.spec.MetadataEnv)
	for _, l := range lines {
		w.trace.Log("metadata", "INFO", l)
	}
	return lines != nil
}

// RestartMetadata implements engine.MetadataRestarter: the server
// restarts with env over the topology's (a remedy's token).
func (w *World) RestartMetadata(ctx context.Context, env map[string]string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.spec.Metadata != "http" || w.metaHandler == nil {
		return engine.Unsupportedf("fake engine: remedy metadata_env: the world has no standalone HTTP metadata server")
	}
	if err := w.stopMetaLocked(); err != nil {
		return err
	}
	w.spec.MetadataEnv = engine.MergeFlags(w.spec.MetadataEnv, env)
	w.metaHandler = servers.NewMetadataHandler(w.newMetadata())
	return w.startMetaLocked(ctx)
}

func (w *World) newMaster(cfg master.Config) *master.Master {
	return w.newMasterLogged(cfg, mlog.Trace{T: w.trace, Source: "master"})
}

// newMasterLogged is newMaster logging to log.
func (w *World) newMasterLogged(cfg master.Config, log mlog.Logger) *master.Master {
	// Stream named as sim names it at world start ("master#<events fired>").
	return master.New(cfg, masterClock{mooncakeClock{start: w.start, s: w.scale}, &w.stalls}, log, rng.Stream(w.spec.Seed, "master#0"))
}

// newMetadata is the metadata store: the wheel's Python server for
// "http" (rpc_meta duplicates refused from 0.3.6, an identical value
// accepted from 0.3.14), the master's embedded one for "master" (same
// value → 200 "metadata unchanged" from 0.3.12).
func (w *World) newMetadata() *metadata.Server {
	if w.spec.Metadata == "master" {
		return metadata.New(w.profile.MetadataSameValueOK)
	}
	return metadata.PythonAt(w.profile, w.spec.MetadataEnv)
}

func (w *World) startMaster(ctx context.Context, addr string) error {
	v4, v6 := w.masterModel.Config().RPCListens()
	if !v4 {
		// Every proxy's upstream is the IPv4 listener.
		return engine.Unsupportedf("fake engine: a master whose --rpc_address (%s) does not listen on IPv4 is not served (the proxies dial IPv4)", w.masterModel.Config().RPCAddress)
	}
	srv := servers.NewMasterServer(&w.gate, func() master.Service { return w.masterModel }, w.logger)
	w.admitRPCProtocol(srv)
	if err := srv.Listen(ctx, addr); err != nil {
		return fmt.Errorf("fake engine: master: %w", err)
	}
	w.masterSrv, w.masterAddr, w.masterUp = srv, srv.Addr(), true
	if v6 {
		_, port, _ := net.SplitHostPort(w.masterAddr)
		srv6 := servers.NewMasterServer(&w.gate, func() master.Service { return w.masterModel }, w.logger)
		if err := srv6.Listen(ctx, net.JoinHostPort("::1", port)); err != nil {
			_ = srv.Close()
			w.masterUp = false
			return fmt.Errorf("fake engine: master on [::1]: %w", err)
		}
		w.masterSrv6 = srv6
	}
	return nil
}

func (w *World) startMetadata(ctx context.Context, addr string) error {
	v4, v6 := true, false
	if w.spec.Metadata == "master" && w.masterModel != nil {
		// The master's embedded server: its --http_metadata_server_host.
		v4, v6 = w.masterModel.Config().MetadataListens()
	}
	if !v4 {
		return engine.Unsupportedf("fake engine: an embedded metadata server whose --http_metadata_server_host (%s) does not listen on IPv4 is not served (the proxies dial IPv4)", w.masterModel.Config().HTTPMetadataHost)
	}
	srv, err := servers.ServeHTTP(ctx, addr, w.metaHandler)
	if err != nil {
		return fmt.Errorf("fake engine: metadata: %w", err)
	}
	w.metaSrv, w.metaAddr, w.metaUp = srv, srv.Addr(), true
	if v6 {
		_, port, _ := net.SplitHostPort(w.metaAddr)
		srv6, err := servers.ServeHTTP(ctx, net.JoinHostPort("::1", port), w.metaHandler)
		if err != nil {
			_ = srv.Close()
			w.metaUp = false
			return fmt.Errorf("fake engine: metadata on [::1]: %w", err)
		}
		w.metaSrv6 = srv6
	}
	return nil
}

// ReplaceMaster implements engine.MasterReplacer: the master model of
// another release on the same address, its state lost.
func (w *World) ReplaceMaster(ctx context.Context, version string, flags, env map[string]string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.masterModel == nil || w.spec.Master == nil {
		return engine.Unsupportedf("remedy master_version: the fake engine replaces only its in-process master")
	}
	if version == "" {
		w.mvMu.Lock()
		version = w.masterVersion
		w.mvMu.Unlock()
	}
	if err := mooncake.SkewModelled(version, w.spec.Version); err != nil {
		return engine.Unsupportedf("%v", err)
	}
	mp, err := mooncake.ProfileFor(version)
	if err != nil {
		return fmt.Errorf("fake engine: remedy master_version: %w", err)
	}
	cfg, err := master.ConfigFor(mp, engine.MergeFlags(w.spec.Master.Flags, flags))
	if err != nil {
		return fmt.Errorf("fake engine: remedy master_version: %w", err)
	}
	cfg = master.WithEnv(cfg, mp, engine.MergeFlags(w.spec.Master.Env, env), w.spec.Metadata == "master")
	cfg.RNIC = len(w.spec.Master.RDMA) > 0
	if err := w.stopMasterLocked(); err != nil {
		return err
	}
	w.mvMu.Lock()
	w.masterVersion = version
	w.mvMu.Unlock()
	if w.metaUnbound {
		if err := w.stopMetaLocked(); err != nil {
			return err
		}
		w.dropHeldMetadataLocked()
	}
	metaStart := w.masterMetadataStart(cfg)
	if metaStart == master.MetadataAborts {
		w.gate.Lock()
		w.masterModel = w.newMasterLogged(cfg, mlog.Discard{}) // for its config: down
		w.gate.Unlock()
		return w.stopMetaLocked()
	}
	w.gate.Lock()
	w.masterModel = w.newMaster(cfg)
	w.gate.Unlock()
	if err := w.startMaster(ctx, w.masterAddr); err != nil {
		return err
	}
	if w.spec.Metadata == "master" && w.metaSrv != nil {
		// The embedded metadata server restarts with the master: its
		// host flag may have changed, its store is lost.
		if err := w.stopMetaLocked(); err != nil {
			return err
		}
		if err := w.startMetaLocked(ctx); err != nil {
			return err
		}
		if metaStart == master.MetadataUnchecked {
			w.metaUnbound = true
			w.metaHandler.Pause()
		}
	}
	return nil
}
