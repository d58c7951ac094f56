package suites_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/realengine"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// The real engine may skip only what this machine cannot have: RDMA
// hardware, and versions PyPI has no non-CUDA wheel for. Every other
// catalog version must be installed (`make real-engine` installs exactly
// those) and pass.
var _ = catalogSuite(realSuite)

// realSuite is the real catalog; the SGLang agreement runs its entries
// that it does not cover itself beside its pairs (suites/memo_test.go).
var realSuite = engineSuite{
	name:      realengine.Name,
	newEngine: func() engine.Engine { return realengine.New(realengine.Options{}) },
	opts:      scenarios.Options{Seed: 1},
	// Slow-wall scenarios (the 10-minute blackholed master) run only with
	// FAULTLAB_SLOW=1 (nightly): scenarios.SlowSkip, as in `faultlab run`.
	// The catalog mostly waits out Mooncake's timeouts (1,250
	// world-seconds, the longest 95 s): two worlds per core. Three (the
	// CLI's default) took longer on a loaded machine, its timing
	// agreement rerunning what the load stretched (4 min instead of 30 s).
	parallel: 2 * runtime.GOMAXPROCS(0),
	// Real logs explain to their own scenario; the one gap of
	// docs/REAL-FINDINGS.md §18 closed when sim modelled the client pool's
	// dead connections (§21, seed 2026).
	explained: []string{},
	// Nothing installed (no PyPI): the whole suite skips with the engine's
	// own reason ("Mooncake 0.3.13.post1 not installed ...; run `make real-engine`").
	available: func(ctx context.Context) error {
		return realengine.New(realengine.Options{}).Available(ctx, mooncake.Latest)
	},
	maySkip: func(sc *scenarios.Scenario, version string) bool {
		return noToxic(sc) || sc.HasLabel(realengine.NeedsRDMAHardware) || sc.HasLabel(scenarios.LabelNeedsGPU) || realengine.HasCPUWheel(version) != nil || ownPortRange(sc)
	},
	agree:   true,
	timings: true,
	memo:    realRuns,
	after:   func() { Expect(mooncakeProcesses()).To(BeEmpty()) },
}

// mooncakeProcesses lists running processes that the real engine starts —
// mooncake_master, mooncake_client, mooncake_http_metadata_server, the
// Python drivers, real SGLang's fork servers and the schedulers they fork
// (which keep the server's command line) and etcd (topology metadata:
// etcd) — among this test process's descendants (other users of the
// machine may run Mooncake too).
func mooncakeProcesses() []string {
	var out []string
	pids, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range pids {
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 {
			continue // exited meanwhile, or a kernel thread
		}
		if !descendsFromUs(filepath.Base(filepath.Dir(p))) {
			continue
		}
		cmd := strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " ")
		for _, name := range []string{"mooncake_master", "mooncake_client", "mooncake_http_metadata_server", "driver.py", "sglang_forkserver.py", "--initial-cluster=faultlab="} {
			if strings.Contains(cmd, name) {
				out = append(out, filepath.Base(filepath.Dir(p))+": "+cmd)
				break
			}
		}
	}
	return out
}

// descendsFromUs reports whether process pid has this process as an
// ancestor (walking /proc/PID/stat's ppid).
func descendsFromUs(pid string) bool {
	me := strconv.Itoa(os.Getpid())
	for range 64 {
		b, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			return false
		}
		// pid (comm) state ppid ...: comm may hold spaces, so cut at the last ')'.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) < 2 {
			return false
		}
		pid = f[1]
		if pid == me {
			return true
		}
		if pid == "0" || pid == "1" {
			return false
		}
	}
	return false
}

// ownPortRange: a node of sc has an ip_local_port_range of its own, which
// the real engine runs only in a network namespace that has it (made by
// hand, as root: docs/REAL-FINDINGS.md §69), never by changing this host's.
func ownPortRange(sc *scenarios.Scenario) bool {
	return slices.ContainsFunc(sc.Topology.Nodes, func(n scenarios.Node) bool { return n.IPLocalPortRange != "" })
}
