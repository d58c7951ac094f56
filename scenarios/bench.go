package scenarios

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"gopkg.in/yaml.v3"
)

// The bench step runs the wheel's own transfer_engine_bench on a node, as
// operators test a cluster and paste its output into Mooncake's issues
// (Mooncake#391). Its result is the exit status; its glog lines are the
// node's Mooncake lines.
//
// Flags, at v0.3.4.post2, v0.3.9 and v0.3.12.post1 alike
// (mooncake-transfer-engine/example/transfer_engine_bench.cpp): --mode
// (initiator|target, default initiator), --protocol (default rdma),
// --metadata_server, --local_server_name (default the host name),
// --segment_id, --operation (read|write), --buffer_size (default 1 GiB),
// --threads (4 at v0.3.4.post2, 12 from v0.3.9), --duration (seconds,
// default 10). v0.3.9 adds --backend (classic), whose tent backend no wheel
// here builds.

// The bench's modes.
const (
	BenchInitiator = "initiator" // transfers to --segment_id for --duration, then exits
	BenchTarget    = "target"    // serves its buffers until SIGINT/SIGTERM (then returns 0)
)

// BenchStep is the bench step's mapping.
type BenchStep struct {
	Node     string `yaml:"node"`
	Mode     string `yaml:"mode"`
	Protocol string `yaml:"protocol"`
	// Metadata is --metadata_server (placeholders expanded); default the
	// node's MOONCAKE_TE_META_DATA_SERVER, so a remedy's env changes it.
	Metadata string `yaml:"metadata"`
	// LocalServerName is --local_server_name; default the node's
	// MOONCAKE_LOCAL_HOSTNAME, else 127.0.0.1.
	LocalServerName string   `yaml:"local_server_name"`
	SegmentID       string   `yaml:"segment_id"`
	Operation       string   `yaml:"operation"`
	BufferSize      ByteSize `yaml:"buffer_size"`
	Threads         int64    `yaml:"threads"`
	// Duration is --duration (whole seconds, default 1 s): an initiator's
	// loop; a target is stopped after it (a normal end).
	Duration Duration `yaml:"duration"`
	Want     any      `yaml:"want"`
}

func (s *Step) decodeBench(d *decoder, v *yaml.Node) {
	var b BenchStep
	d.decodeStruct(v, reflectValue(&b), StepBench)
	s.Node, s.Want, s.Bench = b.Node, b.Want, &b
	if b.Mode == "" {
		b.Mode = BenchInitiator
	}
	if b.Protocol == "" {
		b.Protocol = "tcp"
	}
	if b.Operation == "" {
		b.Operation = "write"
	}
	if b.BufferSize == 0 {
		b.BufferSize = 64 << 20
	}
	if b.Threads == 0 {
		b.Threads = 1
	}
	if b.Duration == 0 {
		b.Duration = Duration(time.Second)
	}
	switch {
	case b.Mode != BenchInitiator && b.Mode != BenchTarget:
		d.errorf(v, "bench: mode %q; valid: %s, %s", b.Mode, BenchInitiator, BenchTarget)
	case b.Protocol != "tcp":
		// rdma needs an RNIC and nvlink a GPU: neither runs here or is modelled for the bench.
		d.errorf(v, "bench: protocol %q; only tcp is supported", b.Protocol)
	case b.Operation != "read" && b.Operation != "write":
		d.errorf(v, "bench: operation %q; valid: read, write", b.Operation)
	case b.BufferSize < 0 || b.Threads < 0 || b.Threads > 64:
		d.errorf(v, "bench: buffer_size must be positive and threads between 1 and 64")
	case b.Duration.D()%time.Second != 0 || b.Duration < 0:
		d.errorf(v, "bench: duration must be whole seconds (--duration is an int32 of seconds), got %s", b.Duration.D())
	case b.Mode == BenchInitiator && b.SegmentID == "":
		d.errorf(v, "bench: an initiator needs segment_id (the target's --local_server_name)")
	case b.Mode == BenchTarget && b.SegmentID != "":
		d.errorf(v, "bench: a target takes no segment_id")
	}
	d.checkWant(v, s)
}

// benchSchema is the bench step's JSON Schema.
func benchSchema() map[string]any {
	str := map[string]any{"type": "string"}
	return map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{
		"node": str, "metadata": str, "local_server_name": str, "segment_id": str,
		"mode":        map[string]any{"enum": []any{BenchInitiator, BenchTarget}},
		"protocol":    map[string]any{"enum": []any{"tcp"}},
		"operation":   map[string]any{"enum": []any{"read", "write"}},
		"buffer_size": byteSizeSchema,
		"threads":     map[string]any{"type": "integer", "minimum": 1, "maximum": 64},
		"duration":    durationSchema,
		"want":        map[string]any{"type": "integer"},
	}}
}

// benchStep runs the bench; the result is its exit status, also recorded
// as the call transfer_engine_bench (expect's codes).
func (r *run) benchStep(ctx context.Context, s Step, env Env, file any, extra map[string]any) (any, error) {
	br, ok := r.world.(engine.BenchRunner)
	if !ok {
		return nil, engine.Unsupportedf("bench step: this engine does not run transfer_engine_bench")
	}
	l, err := r.launchFor(s.Node, env, file, extra)
	if err != nil {
		return nil, err
	}
	b := s.Bench
	a := engine.BenchArgs{Mode: b.Mode, Protocol: b.Protocol, SegmentID: b.SegmentID, Operation: b.Operation,
		BufferSize: int64(b.BufferSize), Threads: int(b.Threads), Duration: b.Duration.D()}
	if a.Metadata, err = r.expand(b.Metadata); err != nil {
		return nil, err
	}
	if a.Metadata == "" {
		a.Metadata = l.Env["MOONCAKE_TE_META_DATA_SERVER"]
	}
	if a.Metadata == "" {
		return nil, fmt.Errorf("bench on %s: no metadata (set metadata: or MOONCAKE_TE_META_DATA_SERVER)", s.Node)
	}
	if a.LocalServerName, err = r.expand(b.LocalServerName); err != nil {
		return nil, err
	}
	if a.LocalServerName == "" {
		a.LocalServerName = l.Env["MOONCAKE_LOCAL_HOSTNAME"]
	}
	if a.LocalServerName == "" {
		a.LocalServerName = "127.0.0.1"
	}
	// An initiator gets its loop plus the time init and the transfers'
	// connections take; a target serves for the duration.
	a.Bound = a.Duration
	if a.Mode == BenchInitiator {
		a.Bound += benchSlack
	}
	t0 := r.callStart()
	end, err := br.RunBench(ctx, s.Node, l.Env, a)
	r.integrationCall("transfer_engine_bench", end.Status, err, t0)
	if err != nil {
		return nil, fmt.Errorf("bench %s on %s: %w", strings.Join([]string{a.Mode, a.Metadata}, " "), s.Node, err)
	}
	return int64(end.Status), nil
}

// benchSlack is how much longer than --duration an initiator may run.
const benchSlack = 20 * time.Second
