package engine

import (
	"context"
	"time"
)

// BenchArgs are the flags of a run of the wheel's transfer_engine_bench
// (mooncake-transfer-engine/example/transfer_engine_bench.cpp): the ones a
// scenario sets; the binary's defaults stand for the rest.
type BenchArgs struct {
	Mode            string // --mode: initiator or target
	Protocol        string // --protocol
	Metadata        string // --metadata_server
	LocalServerName string // --local_server_name
	SegmentID       string // --segment_id (initiator)
	Operation       string // --operation: read or write
	BufferSize      int64  // --buffer_size
	Threads         int    // --threads
	// Duration is --duration (whole seconds): the initiator's transfer
	// loop; a target serves until it is stopped.
	Duration time.Duration
	// Bound is how long the run may take: a bench still running then is
	// stopped (SIGTERM, which a target handles: it returns 0), a normal end.
	Bound time.Duration
}

// BenchEnd is how a bench run ended.
type BenchEnd struct {
	// Status is the exit status, or minus the signal that killed it, as
	// Python's subprocess reports it (glog's FATAL, LOG_ASSERT's: SIGABRT,
	// -6).
	Status int
	// Stopped: it was still running at the bound and was stopped.
	Stopped bool
}

// BenchRunner is a World that can run transfer_engine_bench on a node, its
// log lines in the trace (source "mooncake:<node>"). A world without it
// cannot run the bench step (a skip).
type BenchRunner interface {
	RunBench(ctx context.Context, node string, env map[string]string, a BenchArgs) (BenchEnd, error)
}
