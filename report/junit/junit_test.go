package junit_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/report/junit"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

func report() scenarios.Report {
	rs := []scenarios.Result{
		{Scenario: "setup/master-down-refused", Engine: "sim", MooncakeVersion: "0.3.13.post1", Verdict: scenarios.Pass, WallMS: 1500},
		{Scenario: "setup/tenant-unsupported", Engine: "sim", MooncakeVersion: "0.3.9", Verdict: scenarios.Fail, WallMS: 2,
			Reason:   `expected RuntimeError, observed no exception <&"'>`,
			Observed: scenarios.Observed{Calls: []scenarios.Call{{Method: "setup", Code: -1}}, Logs: []string{"Failed to set location of \x01"}}},
		{Scenario: "register/mr-count-exhausted", Engine: "real", MooncakeVersion: "0.3.13.post1", Verdict: scenarios.Skip, Reason: "needs RDMA hardware"},
		{Scenario: "io/happy-path", Engine: "real", MooncakeVersion: "0.3.13.post1", Verdict: scenarios.Error, Reason: "launch: mooncake_master exited", WallMS: 3000},
	}
	rep := scenarios.NewReport(rs)
	rep.Run = &scenarios.RunInfo{Version: "v1", Commit: "abc", GoVersion: "go1.26", Seed: 1, TimeoutScale: 0.02,
		EngineOptions: map[string]scenarios.EngineOptions{"sim": {TimeoutScale: 1}, "real": {TimeoutScale: 1, Wall: true}}}
	return rep
}

func TestFromReport(t *testing.T) {
	doc := junit.FromReport(report())
	if doc.Tests != 4 || doc.Failures != 1 || doc.Errors != 1 || doc.Skipped != 1 || len(doc.Suites) != 2 {
		t.Fatalf("totals %+v", doc)
	}
	s := doc.Suites[0]
	if s.Name != "faultlab.sim" || s.Tests != 2 || s.Cases[1].Name != "setup/tenant-unsupported @0.3.9" ||
		s.Cases[1].ClassName != "faultlab.sim.setup" || s.Cases[1].Failure.Message != `expected RuntimeError, observed no exception <&"'>` {
		t.Fatalf("suite %+v", s)
	}
}

// TestParsers reads the XML with the JUnit parsers CI systems use
// (junitparser, xunitparser); they must see every testcase with its
// verdict and reason.
func TestParsers(t *testing.T) {
	if err := exec.Command("python3", "-c", "import junitparser, xunitparser").Run(); err != nil {
		t.Skip("python3 junitparser/xunitparser not installed (.ci/run installs them): JUnit not checked with CI parsers")
	}
	p, _ := writeXML(t)
	const script = `
import json, sys, junitparser, xunitparser
from junitparser import JUnitXml, Failure, Error, Skipped
out = {"junitparser": [], "xunitparser": []}
xml = JUnitXml.fromfile(sys.argv[1])
for suite in xml:
    for case in suite:
        kind, msg = "pass", ""
        for r in case.result:
            kind, msg = {Failure: "fail", Error: "error", Skipped: "skip"}[type(r)], r.message
        out["junitparser"].append([suite.name, case.classname, case.name, kind, msg, case.time])
ts, tr = xunitparser.parse(open(sys.argv[1]))
for tc in ts:
    kind = "skip" if tc.skipped else ("pass" if tc.good else ("fail" if tc.failed else "error"))
    out["xunitparser"].append([tc.classname, tc.methodname, kind, tc.message or ""])
out["totals"] = [tr.testsRun, len(tr.failures), len(tr.errors), len(tr.skipped)]
print(json.dumps(out))
`
	out, err := exec.Command("python3", "-c", script, p).CombinedOutput()
	if err != nil {
		t.Fatalf("parsers: %v\n%s", err, out)
	}
	var got struct {
		JUnitParser [][]any `json:"junitparser"`
		XUnitParser [][]any `json:"xunitparser"`
		Totals      []int   `json:"totals"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := `[["faultlab.sim","faultlab.sim.setup","setup/master-down-refused @0.3.13.post1","pass","",1.5],` +
		`["faultlab.sim","faultlab.sim.setup","setup/tenant-unsupported @0.3.9","fail","expected RuntimeError, observed no exception \u003c\u0026\"'\u003e",0.002],` +
		`["faultlab.real","faultlab.real.register","register/mr-count-exhausted @0.3.13.post1","skip","needs RDMA hardware",0],` +
		`["faultlab.real","faultlab.real.io","io/happy-path @0.3.13.post1","error","launch: mooncake_master exited",3]]`
	if b, _ := json.Marshal(got.JUnitParser); string(b) != want {
		t.Errorf("junitparser:\n got %s\nwant %s", b, want)
	}
	wantX := `[["faultlab.sim.setup","setup/master-down-refused @0.3.13.post1","pass",""],` +
		`["faultlab.sim.setup","setup/tenant-unsupported @0.3.9","fail","expected RuntimeError, observed no exception \u003c\u0026\"'\u003e"],` +
		`["faultlab.real.register","register/mr-count-exhausted @0.3.13.post1","skip","needs RDMA hardware"],` +
		`["faultlab.real.io","io/happy-path @0.3.13.post1","error","launch: mooncake_master exited"]]`
	if b, _ := json.Marshal(got.XUnitParser); string(b) != wantX {
		t.Errorf("xunitparser:\n got %s\nwant %s", b, wantX)
	}
	if b, _ := json.Marshal(got.Totals); string(b) != "[4,1,1,1]" {
		t.Errorf("xunitparser totals (run, failures, errors, skipped) %s", b)
	}
}

// TestSchema validates the XML against the usual JUnit schema (Jenkins'
// junit-10.xsd, as pytest's tests do), fetched by `make junit-xsd`.
func TestSchema(t *testing.T) {
	xsd := os.Getenv("FAULTLAB_JUNIT_XSD")
	if xsd == "" {
		cache := os.Getenv("FAULTLAB_CACHE")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache", "faultlab")
		}
		xsd = filepath.Join(cache, "junit", "junit-10.xsd")
	}
	if _, err := os.Stat(xsd); err != nil {
		t.Skip("junit-10.xsd not fetched (make junit-xsd): JUnit not checked against the schema")
	}
	if err := exec.Command("python3", "-c", "import xmlschema").Run(); err != nil {
		t.Skip("python3 xmlschema not installed (.ci/run installs it): JUnit not checked against the schema")
	}
	p, xmlText := writeXML(t)
	out, err := exec.Command("python3", "-c", "import sys, xmlschema; xmlschema.XMLSchema(sys.argv[1]).validate(sys.argv[2]); print('valid')", xsd, p).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "valid" {
		t.Fatalf("%v\n%s", err, out)
	}
	// And the schema is not a pushover: a root with a skipped count fails.
	bad := strings.Replace(xmlText, `<testsuites name="faultlab"`, `<testsuites name="faultlab" skipped="1"`, 1)
	if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := exec.Command("python3", "-c", "import sys, xmlschema; xmlschema.XMLSchema(sys.argv[1]).validate(sys.argv[2])", xsd, p).Run(); err == nil {
		t.Fatal("schema accepted an attribute it does not declare")
	}
}

// writeXML writes report()'s JUnit XML to a temp file: its path and text.
func writeXML(t *testing.T) (string, string) {
	t.Helper()
	var buf bytes.Buffer
	if err := junit.Write(&buf, junit.FromReport(report())); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "junit.xml")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, buf.String()
}
