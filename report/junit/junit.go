// Package junit writes a faultlab report as JUnit XML, the format CI
// systems (Jenkins, GitLab, GitHub Actions reporters) read: one testcase
// per scenario × engine × Mooncake version.
package junit

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/mooncake-faultlab/faultlab/scenarios"
)

// TestSuites is the document root. The shape follows the usual JUnit
// schema (Jenkins' junit-10.xsd, which pytest and Surefire also target):
// the root has no skipped count, times have at most three decimals.
type TestSuites struct {
	XMLName  xml.Name    `xml:"testsuites"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Time     Seconds     `xml:"time,attr"`
	Suites   []TestSuite `xml:"testsuite"`
	// Skipped is the total of the suites' (not written on the root).
	Skipped int `xml:"-"`
}

// Seconds is a duration written as seconds with three decimals.
type Seconds float64

// MarshalXMLAttr writes "1.234".
func (s Seconds) MarshalXMLAttr(name xml.Name) (xml.Attr, error) {
	return xml.Attr{Name: name, Value: fmt.Sprintf("%.3f", float64(s))}, nil
}

// TestSuite is one engine's results.
type TestSuite struct {
	Name       string     `xml:"name,attr"`
	Tests      int        `xml:"tests,attr"`
	Failures   int        `xml:"failures,attr"`
	Errors     int        `xml:"errors,attr"`
	Skipped    int        `xml:"skipped,attr"`
	Time       Seconds    `xml:"time,attr"`
	ID         int        `xml:"id,attr"`
	Package    string     `xml:"package,attr"`
	Hostname   string     `xml:"hostname,attr"`
	Timestamp  string     `xml:"timestamp,attr,omitempty"`
	Properties []Property `xml:"properties>property,omitempty"`
	Cases      []TestCase `xml:"testcase"`
	SystemOut  string     `xml:"system-out"`
	SystemErr  string     `xml:"system-err"`
}

// Property is a name/value pair of run metadata.
type Property struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// TestCase is one result.
type TestCase struct {
	Name      string   `xml:"name,attr"`
	ClassName string   `xml:"classname,attr"`
	Time      Seconds  `xml:"time,attr"`
	Skipped   *Skipped `xml:"skipped"`
	Error     *Problem `xml:"error"`
	Failure   *Problem `xml:"failure"`
	SystemOut string   `xml:"system-out,omitempty"`
}

// Skipped says why a result was skipped.
type Skipped struct {
	Message string `xml:"message,attr"`
}

// Problem is a failure or an error: message is the reason, the body adds
// what was observed.
type Problem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

// FromReport builds the JUnit document: one testsuite per engine (in
// first-seen order), testcases in report order.
func FromReport(rep scenarios.Report) TestSuites {
	doc := TestSuites{Name: "faultlab"}
	idx := map[string]int{}
	var props []Property
	if ri := rep.Run; ri != nil {
		props = []Property{
			{"faultlab.version", ri.Version}, {"faultlab.commit", ri.Commit}, {"go.version", ri.GoVersion},
			{"seed", fmt.Sprint(ri.Seed)}, {"timeout_scale", fmt.Sprint(ri.TimeoutScale)},
		}
		if ri.Shard != "" {
			props = append(props, Property{"shard", ri.Shard})
		}
	}
	for _, r := range rep.Results {
		i, ok := idx[r.Engine]
		if !ok {
			i = len(doc.Suites)
			idx[r.Engine] = i
			// Property names are unique across suites: some parsers
			// (xunitparser) merge every suite's properties into one map.
			var p []Property
			if i == 0 {
				p = append(p, props...)
			}
			if ri := rep.Run; ri != nil {
				if eo, ok := ri.EngineOptions[r.Engine]; ok {
					p = append(p, Property{r.Engine + ".timeout_scale", fmt.Sprint(eo.TimeoutScale)})
				}
			}
			doc.Suites = append(doc.Suites, TestSuite{Name: "faultlab." + r.Engine, ID: i, Package: "faultlab", Hostname: "localhost", Properties: p})
		}
		s := &doc.Suites[i]
		tc := TestCase{Name: r.Scenario + " @" + r.MooncakeVersion, ClassName: "faultlab." + r.Engine + "." + category(r.Scenario), Time: Seconds(r.WallMS / 1000)}
		switch r.Verdict {
		case scenarios.Pass:
		case scenarios.Skip:
			tc.Skipped = &Skipped{Message: r.Reason}
			s.Skipped++
		case scenarios.Fail:
			tc.Failure = &Problem{Message: r.Reason, Type: "fail", Body: details(r)}
			s.Failures++
		default:
			tc.Error = &Problem{Message: r.Reason, Type: "error", Body: details(r)}
			s.Errors++
		}
		s.Tests++
		s.Time += tc.Time
		s.Cases = append(s.Cases, tc)
	}
	for _, s := range doc.Suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Skipped += s.Skipped
		doc.Time += s.Time
	}
	return doc
}

// category is a scenario name's first path element ("setup").
func category(name string) string {
	c, _, _ := strings.Cut(name, "/")
	return c
}

// details is the observed outcome, for the failure body.
func details(r scenarios.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nseed %d, replay: faultlab replay --report REPORT --scenario %s --engine %s --mooncake-version %s\n",
		r.Reason, r.Seed, r.Scenario, r.Engine, r.MooncakeVersion)
	o := r.Observed
	if e := o.Exception; e != nil {
		fmt.Fprintf(&b, "raised %s: %s\n", e.Class, e.Message)
	}
	if d := o.Died; d != nil {
		fmt.Fprintf(&b, "died %s: %s\n", d.How(), d.Reason)
	}
	for _, c := range o.Calls {
		fmt.Fprintf(&b, "call %s -> %d\n", c.Method, c.Code)
	}
	for _, l := range o.Logs {
		fmt.Fprintf(&b, "log %s\n", l)
	}
	return b.String()
}

// Write writes the document with an XML header.
func Write(w io.Writer, doc TestSuites) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}
