package suites_test

import (
	"context"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/fakeengine"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// fakeContainerWorlds is how many fake container worlds run at once: the
// catalog waits mostly on Docker (a world's containers start in ≈ 1 s)
// while its scaled timeouts are short, so two per core keep 2 cores busy
// without stretching a 0.02-scaled timeout.
const fakeContainerWorlds = 4

// fakeContainerScale is the fake engine's TimeoutScale in container
// worlds: every link crosses the Docker bridge twice (harness → toxiproxy's
// container → a server container or back to the harness), and on a loaded
// 2-core machine that wall latency, × 1/s, pushed etcd's 5 s operations
// (100 ms of wall time at 0.02) over their deadline now and then.
const fakeContainerScale = 0.05

// The fake catalog again with its servers (master, metadata) and toxiproxy
// in containers: the same verdicts, codes and messages as in processes
// (agreement with sim, which the process catalog also meets), the container
// scenarios too, and nothing labelled faultlab.world left. Without Docker
// the suite skips with one line saying what is missing.
var _ = catalogSuite(engineSuite{
	name:       fakeengine.Name,
	title:      " in containers",
	labels:     []string{"containers"},
	containers: true,
	nightly:    containerActionsOnly,
	newEngine:  func() engine.Engine { return fakeengine.New(fakeengine.Options{Containers: true}) },
	opts:       scenarios.Options{Seed: 1, TimeoutScale: fakeContainerScale},
	parallel:   fakeContainerWorlds,
	available: func(ctx context.Context) error {
		return fakeengine.New(fakeengine.Options{Containers: true}).Available(ctx, mooncake.Latest)
	},
	// The only skips: container scenarios about where the SGLang side sits,
	// which on fake runs in the harness process (fakeContainersMaySkip).
	maySkip: func(sc *scenarios.Scenario, _ string) bool { return fakeContainersMaySkip(sc) },
	agree:   true,
	after:   func() { Expect(leftoversOfThisProcess(context.Background())).To(BeEmpty()) },
})

// fakeContainersMaySkip: sc needs the SGLang side or mooncake_client in
// containers of their own, which the fake engine keeps in the harness: a
// container fault on a node or the client, mooncake_client in its own pod
// or a /dev/shm size, SGLang's default local_hostname across nodes' pods
// or a local_hostname no DNS on the world network knows,
// or the master's pinned container address ({{master_ip}}), or an answer
// fault on the metadata server, or the master's own environment or RNICs.
func fakeContainersMaySkip(sc *scenarios.Scenario) bool {
	if noToxic(sc) || loopbackIPv6Only(sc) {
		return true
	}
	t := sc.Topology
	if c := t.Client; c != nil && (c.Shm > 0 || c.Sidecar != nil && !*c.Sidecar) {
		return true
	}
	// The served master is started without the scenario's environment or
	// RNICs (fakeengine/incontainers.go says so as its skip).
	if m := t.Master; m != nil && (len(m.Env) > 0 || len(m.NIC.RDMA) > 0) {
		return true
	}
	hostname := false
	var nodes []string
	for _, n := range t.Nodes {
		nodes = append(nodes, n.Name)
	}
	for _, n := range t.Nodes {
		if n.Shm > 0 {
			return true
		}
		h, set := n.Env["MOONCAKE_LOCAL_HOSTNAME"]
		if set && h != nil && len(t.Nodes) > 1 && engine.NameOffNetwork(*h, nodes) {
			return true
		}
		hostname = hostname || set
	}
	if _, set := sc.Config.Env["MOONCAKE_LOCAL_HOSTNAME"]; !set && !hostname && len(t.Nodes) > 1 {
		return true
	}
	for _, v := range sc.Config.Env {
		if v != nil && strings.Contains(*v, "{{master_ip}}") {
			return true
		}
	}
	// The served metadata server runs in its container without the
	// harness's answer handler: an answer fault is the engine's skip.
	for _, f := range sc.Faults {
		if f.Kind == "answer" {
			return true
		}
	}
	return sglangSideContainerFault(sc)
}

// sglangSideContainerFault: sc has a container fault on a party other than
// the master or the metadata server, or a memory limit (the fake servers'
// memory is not Mooncake's).
func sglangSideContainerFault(sc *scenarios.Scenario) bool {
	for _, f := range sc.Faults {
		if f.Kind != "container" {
			continue
		}
		if f.Action == "memory" {
			return true
		}
		for _, t := range strings.Split(f.Target, ",") {
			if t = strings.TrimSpace(t); !slices.Contains([]string{"master", "metadata"}, t) {
				return true
			}
		}
	}
	return false
}

var _ = Describe("fake engine in containers interrupted", Label("containers", "fake"), func() {
	It("removes the world's containers and network when the run's context is cancelled (Ctrl-C)", func(ctx SpecContext) {
		eng := fakeengine.New(fakeengine.Options{Containers: true})
		if err := eng.Available(ctx, mooncake.Latest); err != nil {
			Skip(err.Error())
		}
		// Build the image first, so the cancel lands mid-run, not mid-build.
		r := scenarios.RunVersion(ctx, catalogScenario("io/happy-path"), eng, mooncake.Latest, scenarios.Options{Seed: 1, TimeoutScale: fakeContainerScale})
		Expect(r.Verdict).To(Equal(scenarios.Pass), r.Reason)
		run, cancel := context.WithCancel(ctx)
		// 20 attempts × 30 s request timeout = 30 s at scale 0.05: cancel mid-setup.
		time.AfterFunc(3*time.Second, cancel)
		start := time.Now()
		r = scenarios.RunVersion(run, catalogScenario("setup/master-blackholed"), eng, mooncake.Latest, scenarios.Options{Seed: 1, TimeoutScale: fakeContainerScale})
		Expect(time.Since(start)).To(BeNumerically("<", 15*time.Second))
		Expect(r.Verdict).NotTo(Equal(scenarios.Pass))
		Expect(leftoversOfThisProcess(ctx)).To(BeEmpty())
	}, SpecTimeout(3*time.Minute))
})
