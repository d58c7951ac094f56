package te

import (
	"context"
	"syscall"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/models/mlog"
)

// BenchFlags are the transfer_engine_bench flags the model reads.
type BenchFlags struct {
	Mode            string // initiator or target
	Metadata        string // --metadata_server
	LocalServerName string // --local_server_name
	BufferSize      int64
	// Bound: when a run still going is stopped (SIGTERM).
	Bound time.Duration
}

// benchBuffer is where the model's bench buffer lies (numa_alloc_onnode's;
// only the registration's bookkeeping reads it).
const benchBuffer = 0x7f3000000000

// RunBench is transfer_engine_bench's classic backend over TCP
// (example/transfer_engine_bench.cpp, v0.3.4.post2 initiator()/target(),
// the same at v0.3.9 and v0.3.12.post1): init, whose result it ignores;
// installTransport("tcp"), LOG_ASSERT(xport) in the initiator only; one
// buffer (one NUMA node) registered, LOG_ASSERT(!rc); then the target
// serves until SIGTERM (its handler ends the loop, main returns 0 and the
// engine's destructor unpublishes). A FATAL ends
// the process with SIGABRT (real 0.3.9 … 0.3.14: "*** Check failure stack
// trace: ***", killed by signal 6): the status is -6, as Python's
// subprocess reports it. The initiator's transfer loop (openSegment, the
// batches) is not modelled: a run that gets there is unsupported.
func RunBench(ctx context.Context, cfg Config, clock engine.Clock, f BenchFlags) (engine.BenchEnd, error) {
	e := New(cfg)
	e.loadGlobalConfig()
	e.publishAtInstall = true
	_ = e.init(ctx, f.LocalServerName, f.Metadata, false) // unchecked in the bench
	if e.aborted != nil {
		return abortEnd(), nil
	}
	if e.installTCP(ctx) != 0 {
		if e.cfg.Profile.FailedInstallDeletesTransport && e.metaURL != "" && !e.del(ctx, e.segmentKey(e.serverName)) {
			e.logf(mlog.Error, "Failed to unregister segment descriptor, name %s", e.serverName)
		}
		if f.Mode == "initiator" {
			e.logf(mlog.Fatal, "Assert failed: xport")
			return abortEnd(), nil
		}
	}
	// Each installed transport registers the buffer and publishes the
	// descriptor: a target whose install failed has none, so it publishes
	// nothing and serves (real 0.3.9: "DRAM is used", no PUT).
	if rc := e.RegisterLocalMemory(ctx, benchBuffer, f.BufferSize, len(e.transports) > 0); rc != 0 {
		e.logf(mlog.Fatal, "Assert failed: !rc")
		return abortEnd(), nil
	}
	if e.cfg.Profile.BenchDRAMLine {
		e.logf(mlog.Info, "DRAM is used, numa node num: 1")
	} else {
		e.logf(mlog.Info, "numa node num: 1")
	}
	if f.Mode == "initiator" {
		return engine.BenchEnd{}, engine.Unsupportedf("bench: the initiator's transfer loop is not modelled")
	}
	if err := clock.Sleep(ctx, f.Bound); err != nil {
		return engine.BenchEnd{}, err
	}
	if !e.cfg.Profile.BenchQuietSignal {
		e.logf(mlog.Info, "Received signal %d, stopping target server...", int(syscall.SIGTERM))
	}
	// main returns: the engine's destructor (freeEngine) removes what it
	// published (real 0.3.9 against a 404: "Failed to remove location of").
	e.Close(ctx)
	return engine.BenchEnd{Stopped: true}, nil
}

func abortEnd() engine.BenchEnd { return engine.BenchEnd{Status: -int(syscall.SIGABRT)} }
