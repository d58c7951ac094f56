package sim

import (
	"context"
	"fmt"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/sim/netsim"
)

// A sim container world (Options.Containers, `faultlab run --engine sim
// --containers`) models the real engine's: every party — master, metadata
// server, mooncake_client, each node's SGLang process — in its own
// container on one network, dialled by its role name; container faults act
// on those parties in Mooncake terms (what real showed in containers,
// docs/REAL-FINDINGS.md §23):
//
//   - stop, kill: the party's process is gone, its state with it (a master
//     restarted after it has no objects); start: a fresh process.
//   - restart: kill + start. Parties dial the master through toxiproxy,
//     which resolves the role name on every connection, so nobody keeps
//     dialling the old container address: a process restart.
//   - pause: every thread frozen; peers see silence (a paused server).
//   - partition: the party's links blackholed both ways: an established
//     connection goes silent and each RPC waits for its request timeout
//     (real: health_check still 0 20 s after SGLang's partition, 2 after
//     the first ping timed out).
//   - memory: a limit below the party's usage is refused (cgroup v1, where
//     real ran: runc "unable to set memory limit"); above it nothing
//     happens, since no model party grows.
//
// Outside a container world the scheduler makes a container fault a skip.

// InContainers tells the scheduler container faults can be injected here.
func (in injector) InContainers() bool { return in.w.containers }

// masterRSS is mooncake_master's resident size right after start (real
// 0.3.13.post1 in a container: 33.5 MiB, docs/REAL-FINDINGS.md §23).
const masterRSS = 33_500 * 1024

// dockerMinMemory is the smallest limit docker update accepts (6 MB).
const dockerMinMemory = 6 * 1024 * 1024

// containerCheck says which container faults this world cannot model.
func (w *World) containerCheck(f faults.Fault) error {
	for _, t := range faults.ContainerTargets(f) {
		if err := w.containerTargetCheck(t, f); err != nil {
			return err
		}
	}
	return nil
}

func (w *World) containerTargetCheck(t string, f faults.Fault) error {
	switch t {
	case "master":
		if w.spec.Master == nil {
			return fmt.Errorf("sim: %s: the topology has no master", f)
		}
		if w.ha != nil || w.spec.Master.HA {
			return engine.Unsupportedf("sim: %s: HA masters in containers are not modelled", f)
		}
		return nil
	case "metadata":
		if w.spec.Metadata != "http" {
			return fmt.Errorf("sim: %s: the topology has no metadata server of its own (metadata %q)", f, w.spec.Metadata)
		}
	case ClientNode:
		if w.spec.Client == nil {
			return fmt.Errorf("sim: %s: the topology has no mooncake_client", f)
		}
	default:
		known := false
		for _, n := range w.nodes {
			known = known || n.Name == t
		}
		if !known {
			return fmt.Errorf("sim: %s: no party %q (master, metadata, client or a node)", f, t)
		}
		switch f.Action {
		case "partition", "reconnect":
		case "start", "restart":
			return fmt.Errorf("sim: %s: a node's SGLang process is not restarted by a fault (start a new one with a step)", f)
		default:
			return engine.Unsupportedf("sim: %s of a node's SGLang container is not modelled (partition is)", f.Action)
		}
	}
	if f.Action == "memory" && t != "master" {
		return engine.Unsupportedf("sim: memory limit on %s: its usage in a container was not measured (the master's was)", t)
	}
	return nil
}

// containerInject injects a container fault on every target and returns
// its undo on every target (faults.ContainerUndo).
func (w *World) containerInject(f faults.Fault) (func(context.Context) error, error) {
	ts := faults.ContainerTargets(f)
	var undo []func()
	for _, t := range ts {
		u, err := w.containerAction(t, f.Action, f.Bytes)
		if err != nil {
			return nil, err
		}
		if u != nil {
			undo = append(undo, u)
		}
	}
	if len(undo) == 0 {
		return nil, nil
	}
	return func(context.Context) error {
		for _, u := range undo {
			u()
		}
		return nil
	}, nil
}

// containerAction acts on one party; the returned func is its undo.
func (w *World) containerAction(t, action string, bytes int64) (func(), error) {
	switch action {
	case "partition":
		in, err := w.net.Add(netsim.Any, t, partition(t))
		if err != nil {
			return nil, err
		}
		out, err := w.net.Add(t, netsim.Any, partition(t))
		if err != nil {
			return nil, err
		}
		return func() { w.net.Remove(in); w.net.Remove(out) }, nil
	case "reconnect":
		return nil, nil // the partition's own heal reconnects
	case "memory":
		if bytes < dockerMinMemory {
			return nil, fmt.Errorf("sim: docker update %s: Minimum memory limit allowed is 6MB", t)
		}
		if w.masterState != stopped && bytes < masterRSS {
			return nil, fmt.Errorf("sim: docker update %s: unable to set memory limit to %d (current usage: %d)", t, bytes, masterRSS)
		}
		return nil, nil
	}
	// Process actions on a server: kill/stop = gone (state lost).
	act := map[string]string{"stop": "stop", "kill": "stop", "start": "start", "restart": "restart", "pause": "pause", "unpause": "resume"}[action]
	if act == "" {
		return nil, fmt.Errorf("sim: container action %q", action)
	}
	w.process(t, act)
	if undo := faults.ContainerUndo(action); undo != "" {
		a := map[string]string{"start": "start", "unpause": "resume"}[undo]
		return func() { w.process(t, a) }, nil
	}
	return nil, nil
}

// partition is the link fault a network partition is on every link of a
// party: silence both ways.
func partition(t string) faults.Fault {
	return faults.Fault{Kind: faults.Link, Target: t, Mode: faults.ModeBlackhole}
}

// otherPod: a process on node runs in another network namespace than
// mooncake_client (topology mooncake_client.sidecar: false in a container
// world), so mooncake_client's abstract IPC socket does not exist there:
// the dummy's shm registration is refused (real 0.3.11.post1 and
// 0.3.13.post1 in containers, Mooncake #2937).
func (w *World) otherPod(node string) bool {
	return w.containers && w.spec.Client != nil && w.spec.Client.OwnPod && node != ClientNode
}

// clientLoopbackOnlyFrom: mooncake_client ≤ 0.3.10.post1 serves its RPC on
// 127.0.0.1 only, so a process in another pod is refused (real 0.3.9 in
// containers: "client_id 1 failed:Connection refused", "Dummy Client not
// available").
func (w *World) clientLoopbackOnlyFrom(node string) bool {
	return w.otherPod(node) && w.profile.RealClientRPCLoopback
}
