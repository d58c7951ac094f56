package suites_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
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

var _ = Describe("sim and fake agree", Label("fake", "agreement"), func() {
	It("gives the same verdict, return codes, exception class and message for every scenario both run", func() {
		cat, err := scenarios.Catalog()
		Expect(err).NotTo(HaveOccurred())
		sim, fake := simengine.New(), fakeengine.New(fakeengine.Options{})
		type pair struct{ sim, fake scenarios.Result }
		var pairs []pair
		for _, sc := range cat {
			if !sc.RunsOn(sim.Name()) || !sc.RunsOn(fake.Name()) {
				continue
			}
			s := scenarios.Run(context.Background(), sc, sim, scenarios.Options{Seed: 1})
			f := scenarios.Run(context.Background(), sc, fake, scenarios.Options{Seed: 1, TimeoutScale: fakeScale})
			Expect(f).To(HaveLen(len(s)), sc.Name)
			for i := range s {
				pairs = append(pairs, pair{s[i], f[i]})
			}
		}
		var diffs []string
		compared := 0
		for _, p := range pairs {
			s, f := p.sim, p.fake
			id := s.Scenario + " @ " + s.MooncakeVersion
			Expect(f.MooncakeVersion).To(Equal(s.MooncakeVersion), id)
			if s.Verdict == scenarios.Skip || f.Verdict == scenarios.Skip {
				continue // a capability one engine lacks: nothing to compare
			}
			compared++
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
		}
		Expect(compared).To(BeNumerically(">", 0))
		Expect(diffs).To(BeEmpty(), strings.Join(diffs, "\n"))
	})
})
