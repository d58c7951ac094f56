package suites_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

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

// sameText compares messages with loopback ports and object addresses
// (pybind11 reprs: <... object at 0x7f...>) abstracted.
func sameText(a, b string) bool {
	norm := func(s string) string { return mooncake.NormalizeAddresses(loopbackAddr.ReplaceAllString(s, "$1:PORT")) }
	return norm(a) == norm(b)
}

// agreeWithSim runs on sim every scenario × version the other engine ran
// (results by catalogKey) and compares verdict, return codes, exception
// class and message, and process death.
func agreeWithSim(other map[string]scenarios.Result, otherName string) {
	cat, err := scenarios.Catalog()
	Expect(err).NotTo(HaveOccurred())
	sim := simengine.New()
	var diffs []string
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
			d, ran := compareResults(s, o)
			if ran {
				compared++
			}
			diffs = append(diffs, d...)
		}
	}
	Expect(compared).To(BeNumerically(">", 0), "no scenario ran on both sim and %s", otherName)
	Expect(diffs).To(BeEmpty(), strings.Join(diffs, "\n"))
}

// compareResults compares sim's result s with another engine's o.
func compareResults(s, o scenarios.Result) (diffs []string, ran bool) {
	id, on := s.Scenario+" @ "+s.MooncakeVersion, o.Engine
	if s.Verdict == scenarios.Skip || o.Verdict == scenarios.Skip {
		return nil, false // a capability one engine lacks: nothing to compare
	}
	if s.Verdict != o.Verdict {
		diffs = append(diffs, fmt.Sprintf("%s: verdict sim=%s (%s) %s=%s (%s)", id, s.Verdict, s.Reason, on, o.Verdict, o.Reason))
	}
	sc, _ := json.Marshal(s.Observed.Codes())
	oc, _ := json.Marshal(o.Observed.Codes())
	if string(sc) != string(oc) {
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

func signal(d *scenarios.Death) string {
	if d == nil {
		return ""
	}
	return d.Signal
}
