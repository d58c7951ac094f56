package suites_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	simengine "github.com/mooncake-faultlab/faultlab/sim"
)

// loopbackAddr matches a loopback host:port. sim's parties have fixed
// addresses (127.0.0.1:50051...), fake's and real's are ephemeral ports,
// and SGLang/pybind11 messages quote them (a TypeError lists every
// argument): the port is the one thing allowed to differ.
var loopbackAddr = regexp.MustCompile(`(127\.0\.0\.1|localhost):\d+`)

// roleAddr matches a server's address in a container world, where parties
// dial it by its role name (master:50051): the same party as sim's
// 127.0.0.1:50051.
var roleAddr = regexp.MustCompile(`\b(master|metadata):\d+`)

// sameText compares messages with loopback ports, role addresses and
// object addresses (pybind11 reprs: <... object at 0x7f...>) abstracted.
func sameText(a, b string) bool {
	norm := func(s string) string { return portless(roleAddr.ReplaceAllString(s, "127.0.0.1:PORT")) }
	return norm(a) == norm(b)
}

// portless is s with loopback ports and object addresses abstracted.
func portless(s string) string {
	return mooncake.NormalizeAddresses(loopbackAddr.ReplaceAllString(s, "$1:PORT"))
}

// agreeWithSim runs on sim every scenario × version the other engine ran
// (results by catalogKey) and compares verdict, return codes, exception
// class and message, and process death. With rerun (real), time in each
// Mooncake method must agree too; a run whose times are off is measured up
// to twice more and judged by the per-method median (a loaded machine
// stretches single calls). Those runs are measured again in parallel
// (timingRerunWorkers): they mostly wait, and one after another they were
// 3 min 17 s of make test's critical path (run 34, docs/MEASUREMENTS.md).
//
// A container world's results are compared with sim's container world.
func agreeWithSim(other map[string]scenarios.Result, otherName string, containers bool, rerun func(*scenarios.Scenario, string) scenarios.Result) {
	cat, err := scenarios.Catalog()
	Expect(err).NotTo(HaveOccurred())
	sim := simengine.NewWith(simengine.Options{Containers: containers})
	type remeasure struct {
		sc      *scenarios.Scenario
		version string
		sim     scenarios.Result
		samples []scenarios.Result
	}
	var diffs []string
	var again []*remeasure
	compared := 0
	for _, sc := range cat {
		if !sc.RunsOn(sim.Name()) || !sc.RunsOn(otherName) {
			continue
		}
		vs, _ := sc.Versions("")
		for _, v := range vs {
			o, ok := other[catalogKey(sc.Name, v)]
			if !ok {
				continue // filtered out of this run
			}
			s := scenarios.RunVersion(context.Background(), sc, sim, v, scenarios.Options{Seed: 1})
			d, ran := compareResults(s, o, raceCodes(sc, v, s, o))
			if ran {
				compared++
			}
			diffs = append(diffs, d...)
			if ran && rerun != nil && !sc.HasLabel(scenarios.RacyTimingLabel) && len(timingDiffs(s, o)) > 0 {
				again = append(again, &remeasure{sc: sc, version: v, sim: s, samples: []scenarios.Result{o}})
			}
		}
	}
	work := make(chan *remeasure)
	var wg sync.WaitGroup
	var cpuBound sync.Mutex
	for range timingRerunWorkers {
		wg.Go(func() {
			defer GinkgoRecover()
			for m := range work {
				for len(m.samples) < 3 && len(timingDiffs(m.sim, medianTimings(m.samples))) > 0 {
					m.samples = append(m.samples, remeasured(m.sc, m.version, rerun, &cpuBound))
				}
			}
		})
	}
	for _, m := range again {
		work <- m
	}
	close(work)
	wg.Wait()
	for _, m := range again {
		td := timingDiffs(m.sim, medianTimings(m.samples))
		AddReportEntry(fmt.Sprintf("timing measured again %s: %d runs", catalogKey(m.sc.Name, m.version), len(m.samples)), strings.Join(td, "\n"))
		diffs = append(diffs, td...)
	}
	Expect(compared).To(BeNumerically(">", 0), "no scenario ran on both sim and %s", otherName)
	Expect(diffs).To(BeEmpty(), strings.Join(diffs, "\n"))
}

// timingRerunWorkers is how many runs agreeWithSim measures again at once.
const timingRerunWorkers = 4

// remeasured is one more run of sc at version. A world with SSD offload
// is measured again alone among its kind: its setup is CPU work
// (FileStorage's 1.25 GiB buffer, models/client.FileStorageCost), which
// four at once on two cores stretch past any band (run 113:
// 2.1-2.9 s where a quiet run takes 0.63-0.72 s).
func remeasured(sc *scenarios.Scenario, version string, rerun func(*scenarios.Scenario, string) scenarios.Result, cpuBound *sync.Mutex) scenarios.Result {
	if v := sc.Config.Env["MOONCAKE_ENABLE_SSD_OFFLOAD"]; v != nil && *v == "true" {
		cpuBound.Lock()
		defer cpuBound.Unlock()
	}
	return rerun(sc, version)
}

// raced are the methods whose codes differ between s and o only where the
// scenario names the codes real returns by a race of Mooncake's (a list
// element in expect.codes): both runs meet the expectation there.
func raceCodes(sc *scenarios.Scenario, version string, s, o scenarios.Result) map[string]bool {
	raced := map[string]bool{}
	for m, want := range scenarios.ExpectFor(sc.Expect, sc.ByVersion, version).Codes {
		if len(want.Alt) > 0 && want.Matches(s.Observed.CodesOf(m)) && want.Matches(o.Observed.CodesOf(m)) {
			raced[m] = true
		}
	}
	return raced
}

// compareResults compares sim's result s with another engine's o; the
// codes of methods in raced are not compared.
func compareResults(s, o scenarios.Result, raced map[string]bool) (diffs []string, ran bool) {
	id, on := s.Scenario+" @ "+s.MooncakeVersion, o.Engine
	if s.Verdict == scenarios.Skip || o.Verdict == scenarios.Skip {
		return nil, false // a capability one engine lacks: nothing to compare
	}
	if s.Verdict != o.Verdict {
		diffs = append(diffs, fmt.Sprintf("%s: verdict sim=%s (%s) %s=%s (%s)", id, s.Verdict, s.Reason, on, o.Verdict, o.Reason))
	}
	sc, oc := codesExcept(s, raced), codesExcept(o, raced)
	if sc != oc {
		diffs = append(diffs, fmt.Sprintf("%s: codes sim=%s %s=%s", id, sc, on, oc))
	}
	se, oe := s.Observed.Exception, o.Observed.Exception
	switch {
	case (se == nil) != (oe == nil):
		diffs = append(diffs, fmt.Sprintf("%s: exception sim=%v %s=%v", id, se, on, oe))
	case se != nil && (se.Class != oe.Class || !sameText(se.Message, oe.Message)):
		diffs = append(diffs, fmt.Sprintf("%s: exception sim=%s: %q %s=%s: %q", id, se.Class, se.Message, on, oe.Class, oe.Message))
	}
	if signal(s.Observed.Died) != signal(o.Observed.Died) {
		diffs = append(diffs, fmt.Sprintf("%s: process death sim=%q %s=%q", id, signal(s.Observed.Died), on, signal(o.Observed.Died)))
	}
	return diffs, true
}

// codesExcept is r's codes by method as JSON, without the methods in raced.
func codesExcept(r scenarios.Result, raced map[string]bool) string {
	m := r.Observed.Codes()
	for k := range raced {
		delete(m, k)
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// timingDiffs holds sim's time in each Mooncake method, per phase, to
// real's (scenarios.TimingDiffs: real at most 10 percent or 0.3 s
// earlier, plus the model's racy waits, at most that plus 25 percent and
// 0.5 s later).
func timingDiffs(s, o scenarios.Result) []string {
	id := s.Scenario + " @ " + s.MooncakeVersion
	var out []string
	check := func(phase string, s, o *scenarios.Observed) {
		if s == nil || o == nil {
			return
		}
		calls := scenarios.CallCounts(s.Calls)
		for _, m := range scenarios.TimingDiffs(o.TimingsMS, s.TimingsMS, calls, s.RacyMS, s.HostMS) {
			out = append(out, fmt.Sprintf("%s: %s phase: time in %s (%d calls) sim=%.0fms real=%.0fms (real may be %.0fms earlier, %.0fms later)", id, phase, m, calls[m], s.TimingsMS[m], o.TimingsMS[m], scenarios.TimingSlack(o.TimingsMS[m])+s.RacyMS[m], scenarios.TimingLate(s.TimingsMS[m], calls[m], s.HostMS[m])))
		}
	}
	check("main", &s.Observed, &o.Observed)
	check("remedy", s.Remedy, o.Remedy)
	return out
}

// medianTimings is the first sample with each phase's per-method times
// replaced by their median over the samples.
func medianTimings(rs []scenarios.Result) scenarios.Result {
	med := func(get func(scenarios.Result) *scenarios.Observed) map[string]float64 {
		vals := map[string][]float64{}
		for _, r := range rs {
			if o := get(r); o != nil {
				for m, v := range o.TimingsMS {
					vals[m] = append(vals[m], v)
				}
			}
		}
		out := map[string]float64{}
		for m, vs := range vals {
			slices.Sort(vs)
			out[m] = vs[len(vs)/2]
		}
		return out
	}
	r := rs[0]
	r.Observed.TimingsMS = med(func(r scenarios.Result) *scenarios.Observed { return &r.Observed })
	if r.Remedy != nil {
		rem := *r.Remedy
		rem.TimingsMS = med(func(r scenarios.Result) *scenarios.Observed { return r.Remedy })
		r.Remedy = &rem
	}
	return r
}

func signal(d *scenarios.Death) string {
	if d == nil {
		return ""
	}
	return d.Signal
}

// Two runs on real Mooncake may take either side of a race the scenario
// names (expect.codes lists the codes): that is agreement; any other code
// difference is not.
var _ = Describe("the agreements and a race the scenario names", Label("sim"), func() {
	sc, err := scenarios.Parse("race.yaml", []byte(`name: t/race
steps:
  - init: tp0
  - set: {pages: 2}
expect:
  ok: true
  codes: {setup: 0, batch_put_from: [[-900, -200, 0], [-900, -200, 0]]}
`))
	It("loads", func() { Expect(err).NotTo(HaveOccurred()) })
	run := func(setup int, put ...int) scenarios.Result {
		return scenarios.Result{Scenario: "t/race", MooncakeVersion: "0.3.14", Verdict: scenarios.Pass, Observed: scenarios.Observed{
			Calls: []scenarios.Call{{Method: "setup", Code: setup}, {Method: "batch_put_from", Codes: put}}}}
	}
	DescribeTable("sglangDiffs",
		func(a, b scenarios.Result, want []string) {
			Expect(err).NotTo(HaveOccurred())
			Expect(sglangDiffs(sc, "0.3.14", a, b)).To(Equal(want))
		},
		Entry("both sides within the race", run(0, -200, -200), run(0, -900, -900), []string(nil)),
		Entry("one side outside it", run(0, -200, -200), run(0, -800, -800), []string{"codes"}),
		Entry("a code the race does not cover", run(0, 0, 0), run(-1, 0, 0), []string{"codes"}),
	)
})
