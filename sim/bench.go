package sim

import (
	"context"
	"fmt"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/te"
)

var _ engine.BenchRunner = (*World)(nil)

// RunBench implements engine.BenchRunner: the transfer engine model's
// bench (te.RunBench) in a process of its own on the node.
func (w *World) RunBench(ctx context.Context, node string, env map[string]string, a engine.BenchArgs) (engine.BenchEnd, error) {
	pr, err := w.StartProcess(ctx, node, env)
	if err != nil {
		return engine.BenchEnd{}, err
	}
	p := pr.(*Process)
	defer func() { _ = p.Close(ctx) }()
	w.k.RunUntil(w.k.Now())
	d := w.deps(node, p.env, "mooncake:"+node, p.mem, fmt.Sprintf("proc:%s#%d/bench", node, p.id))
	cfg := te.Config{Profile: d.Profile, Host: d.Host, Env: d.Env, Log: d.Log, Metadata: d.Metadata, Etcd: d.Etcd, Ports: d.Ports, PortRand: d.PortRand}
	return te.RunBench(ctx, cfg, d.Clock, te.BenchFlags{Mode: a.Mode, Metadata: a.Metadata, LocalServerName: a.LocalServerName,
		BufferSize: a.BufferSize, Bound: a.Bound})
}
