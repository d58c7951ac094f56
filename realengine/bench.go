package realengine

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
)

var _ engine.BenchRunner = (*World)(nil)

// RunBench implements engine.BenchRunner: the wheel's transfer_engine_bench
// (site-packages/mooncake/transfer_engine_bench) on the node with the
// node's environment, its glog lines in the trace. The metadata URL is the
// scenario's, so it names the world's proxy and faults apply. A bench still
// running at a.Bound gets SIGTERM (a target returns 0 on it), SIGKILL 5 s
// later.
func (w *World) RunBench(ctx context.Context, node string, env map[string]string, a engine.BenchArgs) (engine.BenchEnd, error) {
	if w.ctr != nil {
		return engine.BenchEnd{}, engine.Unsupportedf("bench step: not run in container worlds")
	}
	bin, err := w.l.Binary("transfer_engine_bench")
	if err != nil {
		return engine.BenchEnd{}, err
	}
	args := []string{"--mode=" + a.Mode, "--protocol=" + a.Protocol, "--metadata_server=" + a.Metadata,
		"--local_server_name=" + a.LocalServerName, "--operation=" + a.Operation,
		"--buffer_size=" + strconv.FormatInt(a.BufferSize, 10), "--threads=" + strconv.Itoa(a.Threads),
		"--duration=" + strconv.FormatInt(int64(a.Duration/time.Second), 10),
		// Host buffers, as the model's: a CUDA build (0.3.14) defaults to
		// VRAM ("Failed to set device", exit 1, on a host without a GPU);
		// a build without CUDA lacks the flag, which undefok lets pass.
		"--use_vram=false", "--undefok=use_vram"}
	if a.SegmentID != "" {
		args = append(args, "--segment_id="+a.SegmentID)
	}
	p, err := startProc(procSpec{Name: "transfer_engine_bench " + node, Source: "mooncake:" + node, Path: bin, Args: args,
		Env: w.portWindowEnv(w.env(env)), Dir: w.dir, Trace: w.spec.Trace, Logger: w.log, Role: node})
	if err != nil {
		return engine.BenchEnd{}, err
	}
	var end engine.BenchEnd
	t := time.NewTimer(a.Bound)
	defer t.Stop()
	select {
	case <-p.exited:
	case <-t.C:
		end.Stopped = true
	case <-ctx.Done():
	}
	if err := p.stop(context.WithoutCancel(ctx), 5*time.Second); err != nil {
		return end, fmt.Errorf("real engine: %w", err)
	}
	if ctx.Err() != nil {
		return end, ctx.Err()
	}
	p.mu.Lock()
	ws := p.status
	p.mu.Unlock()
	switch {
	case ws == nil:
		return end, fmt.Errorf("real engine: transfer_engine_bench on %s: %s", node, p.ExitDescription())
	case ws.Signaled():
		end.Status = -int(ws.Signal())
	default:
		end.Status = ws.ExitStatus()
	}
	return end, nil
}
