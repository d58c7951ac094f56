package sim

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/client"
	"github.com/mooncake-faultlab/faultlab/models/hostmem"
	"github.com/mooncake-faultlab/faultlab/models/master"
	"github.com/mooncake-faultlab/faultlab/models/metadata"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
	"github.com/mooncake-faultlab/faultlab/models/te"
	"github.com/mooncake-faultlab/faultlab/mooncake"
)

func (w *World) startMaster() {
	if w.loaderFails(mooncake.ELFMaster, w.masterVersion, "master") {
		w.master, w.masterState, w.masterNoLib = nil, stopped, true
		return
	}
	w.masterNoLib = false
	w.metadataUnbound = false
	if w.metadataPortTaken() {
		switch master.StartHTTPMetadata(w.masterCfg, w.spec.Master.MetadataPort, true, mlog.Trace{T: w.tr, Source: "master"}) {
		case master.MetadataAborts:
			// main()'s LOG(FATAL) before its RPC server starts: nothing
			// listens; a Clear (the port freed) starts it again.
			w.master, w.masterState = nil, stopped
			return
		case master.MetadataUnchecked:
			w.metadataUnbound = true
		}
	}
	if w.metricsPortTaken() && master.StartAdmin(w.masterCfg, w.spec.Master.MetricsPort, true, mlog.Trace{T: w.tr, Source: "master"}) == master.AdminExits {
		// main() returns 1 before its RPC server starts: nothing
		// listens; a Clear (the port freed) starts it again.
		w.master, w.masterState = nil, stopped
		return
	}
	w.master = master.New(w.masterCfg, w.k, mlog.Trace{T: w.tr, Source: "master"}, w.k.Stream(fmt.Sprintf("master#%d", w.k.Fired())))
	w.masterState = running
	w.driveMonitor(w.master)
	if w.spec.Metadata == "master" {
		// The embedded server's store lives in the master process.
		w.metadata, w.metadataState = metadata.New(w.profile.MetadataSameValueOK), running
	}
}

// metadataPortTaken: the master's embedded HTTP metadata server's port
// (topology.master.http_metadata_port) is held by another process.
func (w *World) metadataPortTaken() bool {
	return w.spec.Metadata == "master" && w.spec.Master != nil && w.spec.Master.MetadataPort != 0 && w.held[w.spec.Master.MetadataPort]
}

// metricsPortTaken: the master's admin HTTP server's port
// (topology.master.metrics_port) is held by another process.
func (w *World) metricsPortTaken() bool {
	return w.spec.Master != nil && w.spec.Master.MetricsPort != 0 && w.held[w.spec.Master.MetricsPort]
}

// newHTTPMetadata is the wheel's Python metadata server (topology
// metadata: http) at the world's Mooncake version.
func (w *World) newHTTPMetadata() *metadata.Server {
	return metadata.PythonAt(w.profile, w.spec.MetadataEnv)
}

// startHTTPMetadata starts the wheel's Python metadata server afresh (its
// store lost), unless its release refuses the world's host without a
// token: then it prints its exception, exits, and nothing listens.
func (w *World) startHTTPMetadata() {
	if lines := metadata.StartLines(w.profile, w.spec.MetadataHost, MetadataPort, w.spec.MetadataEnv); lines != nil {
		for _, l := range lines {
			w.tr.Log("metadata", "INFO", l)
		}
		w.metadata, w.metadataState = nil, stopped
		return
	}
	w.metadata, w.metadataState = w.newHTTPMetadata(), running
}

// RestartMetadata implements engine.MetadataRestarter: the server
// restarts with env over the topology's (a remedy's token).
func (w *World) RestartMetadata(_ context.Context, env map[string]string) error {
	if w.spec.Metadata != "http" {
		return engine.Unsupportedf("sim: remedy metadata_env: the world has no standalone HTTP metadata server")
	}
	w.spec.MetadataEnv = engine.MergeFlags(w.spec.MetadataEnv, env)
	w.startHTTPMetadata()
	return nil
}

func (w *World) metadataURL() string {
	if w.spec.Metadata == "http" || w.spec.Metadata == "master" {
		return MetadataURL
	}
	if w.spec.Metadata == "etcd" {
		return "etcd://" + EtcdAddr
	}
	return te.P2PHandshake
}

func (w *World) startStandalone(ctx context.Context) {
	if w.loaderFails(mooncake.ELFClient, w.profile.Version.String(), "client") {
		w.standalone, w.clientState, w.clientNoLib = nil, stopped, true
		return
	}
	w.clientNoLib = false
	cs := w.spec.Client
	d := w.deps(ClientNode, cs.ClientEnv(OffloadDir), "client", hostmem.NewOnHost(w.profile, 0, len(w.nodes)), fmt.Sprintf("mooncake_client@%d", w.k.Now()))
	proto := cs.Protocol
	if proto == "" {
		proto = "tcp"
	}
	seg := cs.GlobalSegmentSize
	if seg == 0 {
		seg = 4 << 30
	}
	sa, err := client.StartStandalone(ctx, d, client.StandaloneSpec{
		Host: "127.0.0.1", Port: "50052", MetadataServer: w.metadataURL(), MasterServerAddress: w.masterAddr,
		Protocol: proto, GlobalSegmentSize: seg, DeviceName: cs.DeviceNames, Flags: cs.Flags,
		VmemHeadroom: cs.VmemHeadroomBytes,
	})
	if err != nil {
		w.tr.Record("client", "log", mlog.Fatal, "mooncake_client exited: "+err.Error())
		w.standalone, w.clientState = nil, stopped
		return
	}
	w.standalone, w.clientState, w.clientMem = sa, running, d.Mem
	w.register(sa.RealClient, ClientNode, d.Mem)
	w.watch(sa.RealClient, nil, d.Mem)
}

// killStandalone is SIGKILL of mooncake_client: its ping thread stops and
// its transfer engine is gone, but nothing unmounts its segment, so the
// master keeps allocating on it until client_ttl expires it. A replica placed
// there fails to transfer (real 0.3.9, explore seed 2003: "Failed to open
// segment for endpoint=...", -800). Which segment a put lands on is the
// master's RandomAllocationStrategy (std::mt19937 seeded by
// std::random_device on real; the master's seeded stream in sim).
func (w *World) killStandalone() {
	if w.standalone != nil {
		w.standalone.RealClient.Kill()
	}
	if w.clientMem != nil {
		w.unregister(w.clientMem)
	}
	w.clientState, w.standalone, w.clientMem = stopped, nil, nil
}

// metadataFor resolves an HTTP metadata host:port.
func (w *World) metadataFor(hostport, _ string) (*metadata.Server, procState) {
	u := strings.TrimPrefix(MetadataURL, "http://")
	u = u[:strings.Index(u, "/")]
	if w.metadata == nil {
		return nil, stopped
	}
	st := w.metadataState
	if w.spec.Metadata == "master" && w.metadataUnbound {
		// Not the master's server: while another process holds the port
		// it accepts and never answers (real 0.3.11.post1: curl's 3 s
		// timeout, REAL-FINDINGS §113); once freed nothing listens.
		if w.held[w.spec.Master.MetadataPort] && sameAddr(hostport, u) {
			return w.metadata, paused
		}
		return nil, stopped
	}
	if w.spec.Metadata == "master" {
		st = w.masterState
		// The embedded server listens on the families its
		// --http_metadata_server_host gives (master.Config.MetadataListens).
		v4, v6 := w.masterCfg.MetadataListens()
		_, port, _ := strings.Cut(u, ":")
		switch {
		case sameAddr(hostport, u) && v4, hostport == "[::1]:"+port && v6:
			return w.metadata, st
		}
		return nil, stopped
	}
	if !sameAddr(hostport, u) {
		return nil, stopped
	}
	return w.metadata, st
}

// process performs a process action on a server.
func (w *World) process(target, action string) {
	ctx := context.Background()
	switch target {
	case "master":
		if w.spec.Master == nil {
			return
		}
		switch action {
		case "stop":
			if w.masterState != stopped {
				w.masterConnsClosed()
			}
			w.masterState = stopped
		case "start":
			if w.masterState == stopped {
				w.startMaster()
			}
		case "restart":
			if w.masterState != stopped {
				w.masterConnsClosed()
			}
			w.startMaster() // all state lost
		default:
			w.masterState.pauseResume(action)
		}
	case "metadata":
		if w.spec.Metadata == "etcd" {
			w.etcdProcess(action)
			return
		}
		if w.spec.Metadata != "http" {
			return
		}
		switch action {
		case "stop":
			w.metadataState = stopped
		case "start":
			if w.metadataState == stopped {
				w.startHTTPMetadata()
			}
		case "restart":
			w.startHTTPMetadata()
		default:
			w.metadataState.pauseResume(action)
		}
	case "client":
		if w.spec.Client == nil {
			return
		}
		switch action {
		case "stop":
			w.killStandalone()
		case "start":
			if w.clientState == stopped {
				w.startStandalone(ctx)
			}
		case "restart":
			w.killStandalone()
			w.startStandalone(ctx)
		default: // SIGSTOP/SIGCONT reach a running (or stopped) process only
			w.clientState.pauseResume(action)
			w.thaw()
		}
	}
}

// ReplaceMaster implements engine.MasterReplacer: mooncake_master of
// another release restarts on the same address, its state lost (the
// clients of the remedy are new processes).
func (w *World) ReplaceMaster(_ context.Context, version string, flags, env map[string]string) error {
	if w.spec.Master == nil || w.ha != nil {
		return engine.Unsupportedf("remedy master_version: the world has no plain mooncake_master")
	}
	if version == "" {
		version = w.masterVersion
	}
	if err := mooncake.SkewModelled(version, w.profile.Version.String()); err != nil {
		return engine.Unsupportedf("%v", err)
	}
	mp, err := mooncake.ProfileFor(version)
	if err != nil {
		return fmt.Errorf("sim: remedy master_version: %w", err)
	}
	cfg, err := master.ConfigFor(mp, engine.ExpandOffloadDir(engine.MergeFlags(w.spec.Master.Flags, flags), OffloadDir))
	if err != nil {
		return fmt.Errorf("sim: remedy master_version: %w", err)
	}
	cfg = master.WithEnv(cfg, mp, engine.MergeFlags(w.spec.Master.Env, env), w.spec.Metadata == "master")
	cfg.RNIC = len(w.spec.Master.RDMA) > 0
	if w.masterState != stopped {
		w.masterConnsClosed()
	}
	w.masterVersion, w.masterCfg = version, cfg
	w.startMaster()
	return nil
}

// SetGPU implements engine.GPUChanger: processes started afterwards see
// the node's new GPU setup (a remedy's gpus: modprobe nvidia_peermem).
func (w *World) SetGPU(_ context.Context, node string, gpu engine.GPUSpec) error {
	return w.setNode(node, "gpus", func(n *engine.NodeSpec) { n.GPU = &gpu })
}

// setNode changes one node of the topology for processes started
// afterwards (a remedy's gpus or npus, named by what).
func (w *World) setNode(node, what string, set func(*engine.NodeSpec)) error {
	nodes := slices.Clone(w.nodes) // the spec's slice is the runner's
	for i := range nodes {
		if nodes[i].Name == node {
			set(&nodes[i])
			w.nodes = nodes
			return nil
		}
	}
	return fmt.Errorf("sim: remedy %s: no node %q in the topology", what, node)
}
