package suites_test

import (
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/explore"
	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/realengine"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// The wall-clock band (scenarios/band.go) must hold on a loaded machine:
// every corpus file that bounds a duration from above runs on real while
// a CPU-bound process spins on each core. Its expectations came from real
// runs on an idle machine; a bound set just above one measured run fails
// here.
var _ = Describe("duration bands under load", Label("real", "bands"), Ordered, func() {
	eng := realengine.New(realengine.Options{})
	var bounded []*scenarios.Scenario

	BeforeAll(func(ctx SpecContext) {
		if err := eng.Available(ctx, mooncake.Latest); err != nil {
			Skip(err.Error())
		}
		scs, err := scenarios.LoadDir(corpusDir)
		Expect(err).NotTo(HaveOccurred())
		for _, sc := range scs {
			if d := sc.Expect.Duration; d != nil && d.Max != nil && sc.RunsOn(realengine.Name) && !sc.HasLabel(openDivergence) {
				bounded = append(bounded, sc)
			}
		}
		Expect(len(bounded)).To(BeNumerically(">=", 3), "corpus files with an upper duration bound")
		for range runtime.NumCPU() {
			burn := exec.Command("sh", "-c", "while :; do :; done")
			burn.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
			Expect(burn.Start()).To(Succeed())
			DeferCleanup(func() { _ = burn.Process.Kill(); _ = burn.Wait() })
		}
	})

	It("passes every upper-bounded corpus file on real with every core busy", func(ctx SpecContext) {
		ran := 0
		for _, sc := range bounded {
			vs, _ := sc.Versions("")
			if realengine.HasCPUWheel(vs[0]) != nil {
				continue
			}
			r := scenarios.RunVersion(ctx, sc, eng, vs[0], scenarios.Options{Seed: 1, Invariants: explore.Check})
			AddReportEntry(sc.Name, string(r.Verdict)+" "+r.Reason)
			if r.Verdict == scenarios.Skip {
				continue // no RNIC here: its reason is in the report
			}
			ran++
			if r.Verdict == scenarios.Fail && strings.HasPrefix(r.Reason, "remedy: ") {
				// The main phase, whose duration the band bounds, passed. A
				// remedy's outcome under this load is another question (once:
				// a remount file's fresh process was not refused, its cause
				// not yet read; docs/MEASUREMENTS.md): reported; the nightly's
				// corpus on real holds the remedy.
				AddReportEntry("remedy under load "+sc.Name, r.Reason)
				continue
			}
			Expect(r.Verdict).To(Equal(scenarios.Pass), "%s @ %s under load: %s", sc.Name, vs[0], r.Reason)
		}
		Expect(ran).To(BeNumerically(">=", 2), "upper-bounded corpus files that ran on real")
	}, NodeTimeout(10*time.Minute))
})
