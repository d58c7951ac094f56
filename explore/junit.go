package explore

import (
	"encoding/xml"
	"fmt"
	"io"
)

// A small JUnit XML encoder (the schema CI systems read): one testsuite,
// one testcase per finding plus one for the clean remainder.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Time     float64     `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Error     *junitFailure `xml:"error,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML.
func WriteJUnit(w io.Writer, r Report) error {
	s := junitSuite{Name: "faultlab explore", Tests: int(r.Summary.Runs), Time: r.Summary.WallS}
	for _, f := range r.Findings {
		c := junitCase{Name: fmt.Sprintf("seed %d", f.Seed), Classname: "explore." + f.Invariant}
		body := &junitFailure{Message: f.Reason, Type: f.Kind, Text: fmt.Sprintf("seed %d engine %s Mooncake %s\ncorpus: %s\n%s", f.Seed, f.Engine, f.Version, f.File, f.Reason)}
		if f.Kind == KindError {
			c.Error = body
			s.Errors++
		} else {
			c.Failure = body
			s.Failures++
		}
		s.Cases = append(s.Cases, c)
	}
	clean := int(r.Summary.Runs) - len(r.Findings)
	if clean > 0 {
		s.Cases = append(s.Cases, junitCase{Name: fmt.Sprintf("%d generated scenarios without findings", clean), Classname: "explore"})
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(junitSuites{Suites: []junitSuite{s}}); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}
