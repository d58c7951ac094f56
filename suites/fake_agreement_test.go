package suites_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	. "github.com/onsi/gomega"

	"github.com/mooncake-faultlab/faultlab/fakeengine"
	"github.com/mooncake-faultlab/faultlab/scenarios"
	simengine "github.com/mooncake-faultlab/faultlab/sim"
)

// loopbackAddr matches a loopback host:port. sim's parties have fixed
// addresses (127.0.0.1:50051...), the fake engine's are ephemeral ports,
// and SGLang/pybind11 messages quote them (a TypeError lists every
// argument): the port is the one thing allowed to differ.
var loopbackAddr = regexp.MustCompile(`(127\.0\.0\.1|localhost):\d+`)

func sameText(a, b string) bool {
	return loopbackAddr.ReplaceAllString(a, "$1:PORT") == loopbackAddr.ReplaceAllString(b, "$1:PORT")
}

// agreeWithSim runs every scenario both engines run on sim and compares
// verdict, return codes, exception class and message with the fake
// results (taken from fake, by scenario name; a scenario missing there —
// the catalog table was filtered out — is run on fake here).
func agreeWithSim(fake map[string][]scenarios.Result) {
	cat, err := scenarios.Catalog()
	Expect(err).NotTo(HaveOccurred())
	sim := simengine.New()
	var diffs []string
	compared := 0
	for _, sc := range cat {
		if !sc.RunsOn(sim.Name()) || !sc.RunsOn(fakeengine.Name) {
			continue
		}
		s := scenarios.Run(context.Background(), sc, sim, scenarios.Options{Seed: 1})
		f, ok := fake[sc.Name]
		if !ok {
			f = runFake(context.Background(), sc, fakeengine.New(fakeengine.Options{}))
		}
		Expect(f).To(HaveLen(len(s)), sc.Name)
		for i := range s {
			d, ran := compareResults(s[i], f[i])
			if ran {
				compared++
			}
			diffs = append(diffs, d...)
		}
	}
	Expect(compared).To(BeNumerically(">", 0))
	Expect(diffs).To(BeEmpty(), strings.Join(diffs, "\n"))
}

func compareResults(s, f scenarios.Result) (diffs []string, ran bool) {
	id := s.Scenario + " @ " + s.MooncakeVersion
	if f.MooncakeVersion != s.MooncakeVersion {
		return []string{fmt.Sprintf("%s: fake ran %s", id, f.MooncakeVersion)}, false
	}
	if s.Verdict == scenarios.Skip || f.Verdict == scenarios.Skip {
		return nil, false // a capability one engine lacks: nothing to compare
	}
	if s.Verdict != f.Verdict {
		diffs = append(diffs, fmt.Sprintf("%s: verdict sim=%s (%s) fake=%s (%s)", id, s.Verdict, s.Reason, f.Verdict, f.Reason))
	}
	sc, _ := json.Marshal(s.Observed.Codes())
	fc, _ := json.Marshal(f.Observed.Codes())
	if string(sc) != string(fc) {
		diffs = append(diffs, fmt.Sprintf("%s: codes sim=%s fake=%s", id, sc, fc))
	}
	se, fe := s.Observed.Exception, f.Observed.Exception
	switch {
	case (se == nil) != (fe == nil):
		diffs = append(diffs, fmt.Sprintf("%s: exception sim=%v fake=%v", id, se, fe))
	case se != nil && (se.Class != fe.Class || !sameText(se.Message, fe.Message)):
		diffs = append(diffs, fmt.Sprintf("%s: exception sim=%s: %q fake=%s: %q", id, se.Class, se.Message, fe.Class, fe.Message))
	}
	return diffs, true
}
