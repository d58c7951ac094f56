package suites_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/fakeengine"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// newSimEngine builds the sim engine for the sim-vs-fake agreement spec.
// It is nil until sim's Engine exists; the suite owner sets it to the sim
// constructor (one line, e.g. in an init() next to the sim table).
var newSimEngine func() engine.Engine

var _ = Describe("sim and fake agree", Label("fake", "agreement"), func() {
	It("gives the same verdict, return codes, exception class and message for every scenario both run", func() {
		if newSimEngine == nil {
			Skip("sim engine not wired into suites (set newSimEngine)")
		}
		cat, err := scenarios.Catalog()
		Expect(err).NotTo(HaveOccurred())
		sim, fake := newSimEngine(), fakeengine.New(fakeengine.Options{})
		var rs []scenarios.Result
		for _, sc := range cat {
			if !sc.RunsOn(sim.Name()) || !sc.RunsOn(fake.Name()) {
				continue
			}
			rs = append(rs, scenarios.Run(context.Background(), sc, sim, scenarios.Options{Seed: 1})...)
			rs = append(rs, scenarios.Run(context.Background(), sc, fake, scenarios.Options{Seed: 1, TimeoutScale: fakeScale})...)
		}
		compared := 0
		for _, c := range scenarios.Compare(rs) {
			ran := 0
			for _, e := range c.Engines {
				if e.Verdict == scenarios.Pass || e.Verdict == scenarios.Fail {
					ran++
				}
			}
			if ran < 2 {
				continue // one side skipped (capability): nothing to compare
			}
			compared++
			Expect(c.Differences).To(BeEmpty(), "%s @ %s: %+v", c.Scenario, c.MooncakeVersion, c.Engines)
		}
		Expect(compared).To(BeNumerically(">", 0))
	})
})
