package explore

import (
	"fmt"
	"io"

	"github.com/mooncake-faultlab/faultlab/report/junit"
)

// WriteJUnit writes the report as JUnit XML in report/junit's document
// (the shape `run --junit` writes): one testcase per finding plus one for
// the clean remainder.
func WriteJUnit(w io.Writer, r Report) error {
	s := junit.TestSuite{Name: "faultlab explore", Package: "faultlab", Hostname: "localhost",
		Tests: int(r.Summary.Runs), Time: junit.Seconds(r.Summary.WallS)}
	for _, f := range r.Findings {
		c := junit.TestCase{Name: fmt.Sprintf("seed %d", f.Seed), ClassName: "explore." + f.Invariant}
		body := &junit.Problem{Message: f.Reason, Type: f.Kind,
			Body: fmt.Sprintf("seed %d engine %s Mooncake %s\ncorpus: %s\n%s", f.Seed, f.Engine, f.Version, f.File, f.Reason)}
		if f.Kind == KindError {
			c.Error = body
			s.Errors++
		} else {
			c.Failure = body
			s.Failures++
		}
		s.Cases = append(s.Cases, c)
	}
	if clean := int(r.Summary.Runs) - len(r.Findings); clean > 0 {
		s.Cases = append(s.Cases, junit.TestCase{Name: fmt.Sprintf("%d generated scenarios without findings", clean), ClassName: "explore"})
	}
	return junit.Write(w, junit.TestSuites{Name: "faultlab explore", Tests: s.Tests, Failures: s.Failures,
		Errors: s.Errors, Time: s.Time, Suites: []junit.TestSuite{s}})
}
