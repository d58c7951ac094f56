package sim_test

import (
	"context"
	"regexp"
	"strconv"
	"time"

	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/faults"
	"github.com/mooncake-faultlab/faultlab/models/client"
	"github.com/mooncake-faultlab/faultlab/sim"
	"github.com/mooncake-faultlab/faultlab/trace"
)

// env is one world + process + store for a spec.
type env struct {
	w     *sim.World
	tr    *trace.Trace
	proc  engine.Process
	store engine.Store
}

type opts struct {
	version  string
	seed     uint64
	noMaster bool
	ha       bool
	metadata string
	client   bool
	node     engine.NodeSpec
	procEnv  map[string]string
	faults   []faults.Fault
	flags    map[string]string
	// containers: a modelled container world (sim.Options.Containers).
	containers bool

	// clientFlags, clientEnv: mooncake_client's own (client: true).
	clientFlags, clientEnv map[string]string
	// masterEnv, masterRDMA: mooncake_master's environment and RNICs.
	masterEnv  map[string]string
	masterRDMA []engine.RDMADevice
}

func launch(o opts) *env {
	ctx := context.Background()
	if o.node.Name == "" {
		o.node.Name = "tp0"
	}
	if o.metadata == "" {
		o.metadata = "P2PHANDSHAKE"
	}
	tr := trace.New(nil)
	spec := engine.WorldSpec{Scenario: "spec", Seed: o.seed, Version: o.version, Trace: tr, Metadata: o.metadata, Nodes: []engine.NodeSpec{o.node}}
	if !o.noMaster {
		spec.Master = &engine.MasterSpec{Flags: o.flags, HA: o.ha, Env: o.masterEnv, RDMA: o.masterRDMA}
	}
	if o.client {
		spec.Client = &engine.ClientSpec{GlobalSegmentSize: 64 << 20, Protocol: "tcp", Flags: o.clientFlags, Env: o.clientEnv}
	}
	eng := sim.NewWith(sim.Options{Containers: o.containers})
	world, err := eng.Launch(ctx, spec)
	Expect(err).NotTo(HaveOccurred())
	w := world.(*sim.World)
	Expect(w.Arm(ctx, o.faults)).To(Succeed())
	p, err := w.StartProcess(ctx, o.node.Name, o.procEnv)
	Expect(err).NotTo(HaveOccurred())
	s, err := p.NewStore(ctx)
	Expect(err).NotTo(HaveOccurred())
	return &env{w: w, tr: tr, proc: p, store: s}
}

func setupArgs(hostname, protocol, devices string) engine.SetupArgs {
	return engine.SetupArgs{
		LocalHostname: hostname, MetadataServer: "P2PHANDSHAKE", GlobalSegmentSize: 16 << 20, LocalBufferSize: 16 << 20,
		Protocol: protocol, RDMADevices: devices, MasterServerAddr: sim.MasterAddr,
	}
}

func (e *env) setup(a engine.SetupArgs) (int, error) {
	return e.store.Setup(context.Background(), a)
}

func (e *env) now() time.Duration { return e.w.Clock().Now() }

// logs returns the log texts of one source.
func (e *env) logs(source string) []string {
	var out []string
	for _, ev := range e.tr.Events() {
		if ev.Kind == "log" && ev.Source == source {
			out = append(out, ev.Text)
		}
	}
	return out
}

// listenPort is the RPC port the process's transfer engine drew
// (findAvailableTcpPort, seeded), from its "listening on" line.
func listenPort(lines []string) int {
	return portOf(lines, `^Transfer Engine RPC using .*, listening on [^ ]+:(\d+)$`)
}

// tcpListenPort is the TCP transport's port (its own draw from 0.3.5).
func tcpListenPort(lines []string) int {
	return portOf(lines, `^TcpTransport: listen on port (\d+)$`)
}

// portOf is the port of the first line matching pattern (its group 1).
func portOf(lines []string, pattern string) int {
	re := regexp.MustCompile(pattern)
	for _, l := range lines {
		if m := re.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			return n
		}
	}
	Expect(lines).To(ContainElement(MatchRegexp(pattern)), "no line like %s", pattern)
	return 0
}

func refused(at time.Duration) faults.Fault {
	return faults.Fault{At: at, Kind: faults.MasterDown, Mode: faults.ModeRefuse}
}

func blackholed(at time.Duration) faults.Fault {
	return faults.Fault{At: at, Kind: faults.MasterDown, Mode: faults.ModeBlackhole}
}

func realOf(e *env) *client.RealClient { return e.store.(*sim.Store).Real() }
