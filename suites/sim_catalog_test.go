package suites_test

import (
	"context"
	"fmt"
	"runtime"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// simEntries is one entry per catalog scenario × version that runs on sim.
func simEntries(body func(name, version string) TableEntry) []TableEntry {
	cat, err := scenarios.Catalog()
	if err != nil {
		return []TableEntry{Entry("catalog loads", Label(sim.Name), "", "", err)}
	}
	var out []TableEntry
	for _, sc := range cat {
		if !sc.RunsOn(sim.Name) {
			continue
		}
		vs, _ := sc.Versions("")
		for _, v := range vs {
			out = append(out, body(sc.Name, v))
		}
	}
	return out
}

// sim has every capability the catalog needs: nothing may skip. The
// container scenarios run in its modelled container world
// (scenarios.ContainerModel), as `faultlab run` runs them by default.
var _ = catalogSuite(engineSuite{name: sim.Name, newEngine: sim.New, opts: scenarios.Options{Seed: 1}, modelsContainers: true})

// The catalog on sim's container world (sim/containers.go), as real runs it
// with --containers: the container scenarios pass, and only what real in
// containers skips for the same reason may skip: several nodes whose
// local_hostname names the loopback (engine.LoopbackAcrossContainers), a
// server dialled at this host's IPv6 loopback (loopbackIPv6Only).
var _ = catalogSuite(engineSuite{name: sim.Name, title: " in a modelled container world", containers: true,
	newEngine: func() engine.Engine { return sim.NewWith(sim.Options{Containers: true}) }, opts: scenarios.Options{Seed: 1},
	maySkip: func(sc *scenarios.Scenario, _ string) bool { return len(sc.Topology.Nodes) > 1 || loopbackIPv6Only(sc) }})

// An entry of mooncake.versions is a claim: a constraint ("*", ">=0.3.9")
// runs at the newest release it matches, but `faultlab run
// --mooncake-version V` runs the scenario at any V it matches, and explain
// fingerprints it there. So the world must hold at every release its
// entries admit, not only at the ones the catalog runs.
var _ = Describe("the catalog at every release its versions admit", Label("sim", "versions"), func() {
	It("passes on sim at each of them", func(ctx SpecContext) {
		cat, err := scenarios.Catalog()
		Expect(err).NotTo(HaveOccurred())
		var bad []string
		runs := 0
		for _, sc := range cat {
			if !sc.RunsOn(sim.Name) {
				continue
			}
			for _, v := range mooncake.Versions {
				if _, ok := sc.Versions(v); !ok {
					continue
				}
				for _, r := range scenarios.Run(ctx, sc, sim.New(), scenarios.Options{Seed: 1, Version: v}) {
					runs++
					if r.Verdict != scenarios.Pass {
						bad = append(bad, fmt.Sprintf("%s @%s: %s %.160s", sc.Name, v, r.Verdict, r.Reason))
					}
				}
			}
		}
		Expect(runs).To(BeNumerically(">", 500), "the sweep ran too little to mean anything: %d runs", runs)
		Expect(bad).To(BeEmpty(), "narrow mooncake.versions to the releases the world holds at, or add a by_version")
	})
})

var _ = Describe("sim determinism", Label("sim", "determinism"), func() {
	DescribeTable("same seed, same trace: twice, at GOMAXPROCS 1 and 2", func(name, version string, loadErr error) {
		Expect(loadErr).NotTo(HaveOccurred())
		sc := catalogScenario(name)
		prev := runtime.GOMAXPROCS(0)
		DeferCleanup(runtime.GOMAXPROCS, prev)
		var hashes []string
		for _, procs := range []int{1, 2} {
			runtime.GOMAXPROCS(procs)
			for range 2 {
				eng := sim.New() // container scenarios: its modelled container world
				r := scenarios.RunVersion(context.Background(), sc, eng, version, scenarios.Options{Seed: 7})
				Expect(r.Verdict).To(Or(Equal(scenarios.Pass), Equal(scenarios.Fail)), r.Reason)
				Expect(r.TraceHash).To(HavePrefix("sha256:"))
				hashes = append(hashes, r.TraceHash)
			}
		}
		Expect(hashes).To(HaveEach(hashes[0]), "trace hashes differ across runs/GOMAXPROCS")
	}, simEntries(func(name, version string) TableEntry {
		return Entry(name+" @"+version, name, version, nil)
	}))

	It("gives different traces for different seeds where randomness shows (auto-picked ports)", func() {
		sc := catalogScenario("setup/http-metadata-unreachable")
		a := scenarios.RunVersion(context.Background(), sc, sim.New(), "0.3.13.post1", scenarios.Options{Seed: 1})
		b := scenarios.RunVersion(context.Background(), sc, sim.New(), "0.3.13.post1", scenarios.Options{Seed: 2})
		Expect(a.TraceHash).NotTo(Equal(b.TraceHash))
	})
})

// The catalog gaps closed with process deaths, the embedding store and
// overlapping registrations: beyond "pass", the observations themselves.
var _ = Describe("catalog observations on sim", Label("sim"), func() {
	run := func(name, version string) scenarios.Result {
		r := scenarios.RunVersion(context.Background(), catalogScenario(name), sim.New(), version, scenarios.Options{Seed: 1})
		Expect(r.Verdict).To(Equal(scenarios.Pass), r.Reason)
		return r
	}

	It("0.3.9 with the master refusing dies with SIGSEGV on auto-port attempt 8 and raises nothing", func() {
		r := run("setup/master-down-refused", "0.3.9")
		Expect(r.Observed.Exception).To(BeNil())
		Expect(r.Observed.Died).To(Equal(&scenarios.Death{Signal: "SIGSEGV", In: scenarios.CallSetup,
			Reason: "Segmentation fault in store.so during auto-port attempt 8/20 with the master refusing connections"}))
		Expect(r.Observed.CodesOf("setup")).To(BeEmpty())
		Expect(r.Remedy).NotTo(BeNil())
		Expect(r.Remedy.Died).To(BeNil())
		Expect(r.Remedy.CodesOf("setup")).To(Equal([]int{0}))
	})

	DescribeTable("the embedding store reaches setup()'s code on every version",
		func(version string, code int) {
			r := run("setup/embedding-store-master-down", version)
			Expect(r.Observed.CodesOf("setup")).To(Equal([]int{code}))
			Expect(r.Observed.Exception).To(Equal(&scenarios.Exception{Class: "RuntimeError",
				Message: fmt.Sprintf("Failed to setup Mooncake Embedding Store: %d", code)}))
			Expect(r.Remedy.CodesOf("register_buffer")).To(Equal([]int{0}))
		},
		Entry("0.3.4: +1", "0.3.4", 1),
		Entry("0.3.8.post1: -600", "0.3.8.post1", -600),
		Entry("0.3.13.post1: -1", "0.3.13.post1", -1),
	)

	DescribeTable("a draft pool sharing the main pool overlaps k and v",
		func(version string) {
			r := run("register/overlapping-region", version)
			Expect(r.Observed.CodesOf("register_buffer")).To(Equal([]int{0, 0, -600}))
			Expect(r.Observed.Logs).To(ContainElement("Transfer Engine does not support overlapped memory region"))
			Expect(r.Remedy.CodesOf("register_buffer")).To(Equal([]int{0, 0, 0}))
		},
		Entry("0.3.9", "0.3.9"),
		Entry("0.3.13.post1", "0.3.13.post1"),
	)
})
