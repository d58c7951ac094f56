package suites_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/engine"
	"github.com/mooncake-faultlab/faultlab/explore"
	"github.com/mooncake-faultlab/faultlab/fakeengine"
	"github.com/mooncake-faultlab/faultlab/realengine"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	"github.com/mooncake-faultlab/faultlab/sim"
)

// The regression corpus (scenarios/regressions/, written by `faultlab
// explore`): every minimal scenario explore ever kept must pass its
// expectations and the invariants — on sim always, on real where it runs.
const corpusDir = "../scenarios/regressions"

func corpusEntries() []TableEntry {
	scs, err := scenarios.LoadDir(corpusDir)
	if err != nil || len(scs) == 0 {
		return []TableEntry{Entry("corpus loads and is not empty", "", err)}
	}
	var out []TableEntry
	for _, sc := range scs {
		out = append(out, Entry(sc.Name, sc.Name, nil))
	}
	return out
}

func corpusScenario(name string) *scenarios.Scenario {
	scs, err := scenarios.LoadDir(corpusDir)
	Expect(err).NotTo(HaveOccurred())
	Expect(scs).NotTo(BeEmpty())
	for _, sc := range scs {
		if sc.Name == name {
			return sc
		}
	}
	Fail("no corpus scenario " + name)
	return nil
}

// replayCorpus runs one corpus scenario; skipOK says whether this engine
// may skip it (real: no capability here), else a skip fails the spec.
//
// A corpus scenario labelled open-divergence records what the real wheel
// does where the model still disagrees (its expectations come from real):
// on sim it must still FAIL, so the spec flips when the model is fixed and
// says to drop the label.
func replayCorpus(eng engine.Engine, opts scenarios.Options, name string, skipOK bool) {
	sc := corpusScenario(name)
	if !sc.RunsOn(eng.Name()) {
		Skip("scenario does not list " + eng.Name())
	}
	if sc.HasLabel(openHarness) && eng.Name() != engine.Model() {
		Skip(name + ": open harness error of this engine, see the file's header")
	}
	vs, _ := sc.Versions("")
	Expect(vs).To(HaveLen(1))
	opts.Seed, opts.Invariants = 1, explore.Check
	if why, slow := scenarios.SlowSkip(sc, eng, opts); slow {
		Skip(why) // the nightly's FAULTLAB_SLOW=1 runs it
	}
	r := scenarios.RunVersion(context.Background(), sc, eng, vs[0], opts)
	if r.Verdict == scenarios.Skip && skipOK {
		Skip(r.Reason)
	}
	if sc.HasLabel(openDivergence) && eng.Name() == "sim" {
		Expect(r.Verdict).To(Equal(scenarios.Fail), "%s now agrees with real on sim: remove its %s label", name, openDivergence)
		return
	}
	Expect(r.Verdict).To(Equal(scenarios.Pass), r.Reason)
}

const (
	openDivergence = "open-divergence"
	openHarness    = "open-harness"
)

var _ = Describe("regression corpus", Label("regressions"), func() {
	DescribeTable("on sim", Label("sim"), func(name string, loadErr error) {
		Expect(loadErr).NotTo(HaveOccurred())
		replayCorpus(sim.New(), scenarios.Options{}, name, false) // sim has every capability: no skip
	}, corpusEntries())

	// Each file already ran on real when it was added (expectations from
	// real); replaying all of them on real takes ≈ 13 minutes, so nightly.
	// `make test` replays on real only the wall-clock bands under load
	// (bands_test.go).
	DescribeTable("on real", Label("real", nightlyLabel), func(name string, loadErr error) {
		Expect(loadErr).NotTo(HaveOccurred())
		replayCorpus(realengine.New(realengine.Options{}), scenarios.Options{}, name, true)
	}, corpusEntries())

	// fake skips what its headers say it cannot run (message sizes, its
	// start lag at timeout scale 0.02): those files list [sim, real].
	DescribeTable("on fake", Label("fake"), func(name string, loadErr error) {
		Expect(loadErr).NotTo(HaveOccurred())
		replayCorpus(fakeengine.New(fakeengine.Options{}), scenarios.Options{TimeoutScale: fakeScale}, name, false)
	}, corpusEntries())
})
