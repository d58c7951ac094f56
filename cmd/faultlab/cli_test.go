package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

func executeIn(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	root := newRoot()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), errOut.String(), err
}

const metadataLog = "E1130 transfer_metadata.cpp:123] Failed to set location of segment localhost:12345\n" +
	"RuntimeError: Failed to setup Mooncake store, error code: -1\n"

// refusedMetadataLog: the connect refused, which a server answering 500
// or refusing the token never prints.
const refusedMetadataLog = "E1130 transfer_metadata_plugin.cpp:340] PUT http://127.0.0.1:8080/metadata?key=mooncake%2Frpc_meta%2Flocalhost%3A12345 curl: Couldn't connect to server err: Failed to connect to 127.0.0.1 port 8080 after 0 ms: Couldn't connect to server\n" + metadataLog

func TestExplainJSON(t *testing.T) {
	out, _, err := executeIn(t, refusedMetadataLog, "explain", "-", "--mooncake-version", "0.3.14", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Candidates []struct {
			Scenario    string   `json:"scenario"`
			Cause       string   `json:"cause"`
			MatchedLogs []string `json:"matched_logs"`
			Remedy      string   `json:"remedy"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	c := res.Candidates[0]
	if c.Scenario != "setup/http-metadata-unreachable" || !strings.HasPrefix(c.Cause, "MOONCAKE_TE_META_DATA_SERVER points at an HTTP metadata service that is down") ||
		strings.Join(c.MatchedLogs, "|") != "Failed to set location of" ||
		c.Remedy != "start the metadata service / fix MOONCAKE_TE_META_DATA_SERVER → verified: starts, register_buffer [0 0], setup 0" {
		t.Fatalf("%+v", c)
	}
}

// At 0.3.14 the engine's lines alone cannot tell a metadata server that is
// down from one that refused its default host without a token: explain
// says so and names both; the server's own traceback tells them apart.
func TestExplainMetadataRefusedAmbiguous(t *testing.T) {
	out, _, err := executeIn(t, metadataLog, "explain", "-", "--mooncake-version", "0.3.14", "--json")
	if exitCode(err) != exitNothing {
		t.Fatalf("exit %d\n%s", exitCode(err), out)
	}
	var d struct {
		Verdict string `json:"verdict"`
		Nearest []struct {
			Name string `json:"name"`
		} `json:"nearest"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if d.Verdict != "no-fit" || len(d.Nearest) < 2 || d.Nearest[0].Name != "setup/http-metadata-unreachable" || d.Nearest[1].Name != "setup/http-metadata-token-required" {
		t.Fatalf("%+v", d)
	}
	out, _, err = executeIn(t, "Traceback (most recent call last):\n  File \"/usr/lib/python3/site-packages/mooncake/http_metadata_server.py\", line 112, in run\n"+
		"RuntimeError: HTTP Metadata Server refuses to bind 0.0.0.0:8080 without an authentication token\n"+metadataLog, "explain", "-", "--json")
	if err != nil || !strings.Contains(out, `"setup/http-metadata-token-required"`) {
		t.Fatalf("%v\n%s", err, out)
	}
}

func TestExplainNothing(t *testing.T) {
	_, _, err := executeIn(t, "all good\n", "explain", "--mooncake-version", "0.3.13.post1")
	if exitCode(err) != exitNothing {
		t.Fatalf("exit %d", exitCode(err))
	}
}

// new --from-log writes a scenario that run accepts and passes. The
// Mooncake line is as transfer_metadata.cpp prints it (field corpus case
// mooncake-391): the draft must print it too.
func TestNewFromLogRuns(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "field.log")
	field := "E1130 12:00:00.123456 77 transfer_metadata.cpp:453] Failed to set location of localhost:12345\n" +
		"RuntimeError: Failed to setup Mooncake store, error code: -1\n"
	if err := os.WriteFile(log, []byte(field), 0o644); err != nil {
		t.Fatal(err)
	}
	y := filepath.Join(dir, "bug.yaml")
	if _, _, err := executeIn(t, "", "new", "--from-log", log, "--name", "field/metadata", "-o", y); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(y)
	if !strings.HasPrefix(string(b), schemaModeline+"\n") || !strings.Contains(string(b), "kind: metadata-down") {
		t.Fatalf("%s", b)
	}
	out, _, err := executeIn(t, "", "run", y)
	if err != nil || !strings.Contains(out, "\n1 run: 1 pass") {
		t.Fatalf("%v\n%s", err, out)
	}
}

func TestShowPrintsEmbeddedYAML(t *testing.T) {
	out, _, err := executeIn(t, "", "show", "setup/http-metadata-unreachable")
	if err != nil || !strings.HasPrefix(out, "name: setup/http-metadata-unreachable\n") {
		t.Fatalf("%v %q", err, out[:min(80, len(out))])
	}
	if _, err := scenarios.Parse("x.yaml", []byte(out)); err != nil {
		t.Fatal(err)
	}
	// For people: roles, not placeholders.
	out, _, err = executeIn(t, "", "show", "setup/http-metadata-unreachable", "--roles")
	if err != nil || strings.Contains(out, "{{") || !strings.Contains(out, "MOONCAKE_MASTER: \"<the master's address>\"") {
		t.Fatalf("%v\n%s", err, out)
	}
	_, _, err = executeIn(t, "", "show", "setup/http-metadata-unreachabel")
	if exitCode(err) != exitUsage || !strings.Contains(err.Error(), `(did you mean "setup/http-metadata-unreachable"?)`) {
		t.Fatalf("%v", err)
	}
}

func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"run", "setup/tenant-unsupported"}, exitOK},
		{[]string{"run", "setup/tenant-unsupported", "--mooncake-version", "0.3.13.post1"}, exitNothing},
		{[]string{"run", "--timeout-scale", "5"}, exitUsage},
		{[]string{"run", "--bogus"}, exitUsage},
		{[]string{"run", "no/such"}, exitUsage},
		{[]string{"run", "--shard", "3/2"}, exitUsage},
		{[]string{"run", "--shard", "2/2"}, exitUsage},
		{[]string{"explore", "--seeds", "1", "--shard", "2/2"}, exitUsage},
		{[]string{"run", "--catalog", "/missing"}, exitUsage},
		{[]string{"show"}, exitUsage},
		{[]string{"replay", "--report", "/missing.json", "--scenario", "x"}, exitUsage},
		{[]string{"run", "--progress", "bogus"}, exitUsage},
		{[]string{"replay"}, exitUsage},
		{[]string{"replay", "--report", "r.json"}, exitUsage},
		{[]string{"new"}, exitUsage},
		{[]string{"runn"}, exitUsage},
		{[]string{"install", "reel"}, exitUsage},
		{[]string{"versions", "list"}, exitOK},
		{[]string{"versions", "add"}, exitUsage},
		{[]string{"versions", "add", "mybranch"}, exitUsage},
		{[]string{"versions", "add", "mybranch", "--derives", "0.3.14"}, exitUsage},
		{[]string{"versions", "add", "0.3.14", "--wheel", "x.whl"}, exitUsage},
		{[]string{"run", "--build", "mybranch"}, exitUsage},
		{[]string{"run", "--sglang-checkout", "/tmp/x"}, exitUsage},
		{[]string{}, exitOK},
	} {
		_, _, err := executeIn(t, "", tc.args...)
		if got := exitCode(err); got != tc.code {
			t.Errorf("%v: exit %d (%v), want %d", tc.args, got, err, tc.code)
		}
	}
}

func TestCatalogMissingMessage(t *testing.T) {
	_, _, err := executeIn(t, "", "run", "--catalog", "/missing")
	if err == nil || err.Error() != "catalog /missing: stat /missing: no such file or directory" {
		t.Fatalf("%v", err)
	}
}

// JSON on stdout is the report alone, with the run's metadata.
func TestRunJSON(t *testing.T) {
	out, _, err := executeIn(t, "", "run", "setup/tenant-unsupported", "--json", "--seed", "7")
	if err != nil {
		t.Fatal(err)
	}
	var rep scenarios.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	ri := rep.Run
	if ri == nil || ri.Tool != "faultlab" || ri.GoVersion == "" || ri.Seed != 7 || ri.TimeoutScale != 0.02 ||
		ri.EngineOptions["sim"] != (scenarios.EngineOptions{TimeoutScale: 1}) || rep.Summary.Pass != 2 {
		t.Fatalf("%s", out)
	}
}

// Sharding splits the runs disjointly; results are in catalog order
// whatever -j.
func TestShardAndOrder(t *testing.T) {
	var all []string
	for _, shard := range []string{"0/3", "1/3", "2/3"} {
		out, _, err := executeIn(t, "", "run", "setup/", "--json", "--shard", shard, "-j", "4")
		if err != nil && exitCode(err) != exitNothing {
			t.Fatal(err)
		}
		var rep scenarios.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		for _, r := range rep.Results {
			all = append(all, r.Scenario+"@"+r.MooncakeVersion+" sglang "+r.SGLangVersion)
		}
	}
	out, _, err := executeIn(t, "", "run", "setup/", "--json", "-j", "1")
	if err != nil {
		t.Fatal(err)
	}
	var rep scenarios.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	var serial []string
	for _, r := range rep.Results {
		serial = append(serial, r.Scenario+"@"+r.MooncakeVersion+" sglang "+r.SGLangVersion)
	}
	if len(all) != len(serial) || len(serial) < 20 {
		t.Fatalf("shards %d runs, serial %d", len(all), len(serial))
	}
	seen := map[string]bool{}
	for _, s := range all {
		if seen[s] {
			t.Fatalf("%s in two shards", s)
		}
		seen[s] = true
	}
	out4, _, _ := executeIn(t, "", "run", "setup/", "-j", "4")
	out1, _, _ := executeIn(t, "", "run", "setup/", "-j", "1")
	strip := func(s string) string { // the WALL column varies
		var b strings.Builder
		for _, l := range strings.Split(s, "\n") {
			if f := strings.Fields(l); len(f) > 3 {
				b.WriteString(f[0] + " " + f[1] + " " + f[2] + " " + f[3] + "\n")
			}
		}
		return b.String()
	}
	if strip(out4) != strip(out1) {
		t.Fatalf("-j 4 order differs:\n%s\nvs\n%s", out4, out1)
	}
}

// An unknown version is refused before any venv is made.
func TestInstallUnknownVersion(t *testing.T) {
	cache := t.TempDir()
	_, _, err := executeIn(t, "", "install", "real", "--versions", "9.9.9", "--cache", cache)
	if exitCode(err) != exitUsage || !strings.Contains(err.Error(), `unknown Mooncake version "9.9.9"`) {
		t.Fatalf("%v", err)
	}
	if ents, _ := os.ReadDir(cache); len(ents) != 0 {
		t.Fatalf("left %v", ents)
	}
}

// Replay of a wall-clock engine's result reuses the report's timeout
// scale and compares outcomes, saying so; --timeline draws it.
func TestReplayWallEngine(t *testing.T) {
	dir := t.TempDir()
	rep := filepath.Join(dir, "r.json")
	if _, _, err := executeIn(t, "", "run", "setup/http-metadata-unreachable", "--engine", "fake", "--timeout-scale", "0.05", "--report", rep); err != nil {
		t.Fatal(err)
	}
	tl := filepath.Join(dir, "t.html")
	out, _, err := executeIn(t, "", "replay", "--report", rep, "--scenario", "setup/http-metadata-unreachable", "--timeline", tl)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"on fake, seed 1, timeout scale 0.05: pass",
		"wall-clock engine: traces are not reproducible, so verdict, return codes, exception and death are compared (not the trace hash)",
		"outcome matches the report: pass, codes setup=-1"} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in\n%s", want, out)
		}
	}
	b, err := os.ReadFile(tl)
	if err != nil || !strings.Contains(string(b), `data-lane="metadata"`) {
		t.Fatalf("timeline: %v", err)
	}
}

// --junit and --emit-expect from the CLI.
func TestRunJUnitAndEmitExpect(t *testing.T) {
	j := filepath.Join(t.TempDir(), "j.xml")
	out, _, err := executeIn(t, "", "run", "setup/http-metadata-unreachable", "--junit", j, "--emit-expect")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(j)
	if !strings.Contains(string(b), `<testcase name="setup/http-metadata-unreachable @0.3.14" classname="faultlab.sim.setup"`) {
		t.Fatalf("%s", b)
	}
	want := "expect:\n  raises:\n    class: RuntimeError\n    message: 'Failed to setup Mooncake store, error code: -1'\n  codes:\n    setup: -1\n"
	if !strings.Contains(out, want) {
		t.Fatalf("no expect block in\n%s", out)
	}
}

// The comparison table never cuts codes: a long cell goes below the table.
func TestComparisonKeepsCodes(t *testing.T) {
	long := map[string]any{"batch_put_from": []int{0, 0, 0, 0, -900, -900, -900, -900}, "setup": 0, "register_buffer": []int{0, 0}}
	var b bytes.Buffer
	printComparison(&b, []scenarios.Comparison{{Scenario: "io/x", MooncakeVersion: "0.3.13.post1", Differences: []string{"codes"},
		Engines: []scenarios.EngineOutcome{{Engine: "sim", Verdict: "pass", Codes: long}, {Engine: "real", Verdict: "pass", Codes: map[string]any{"setup": -1}}}}})
	if !strings.Contains(b.String(), "  sim codes: batch_put_from=[0,0,0,0,-900,-900,-900,-900] register_buffer=[0,0] setup=0\n") ||
		!strings.Contains(b.String(), " setup=-1 ") {
		t.Fatalf("%s", b.String())
	}
}

// Nor the exception: "error code: -600" and "error code: -1" differ in
// their last characters, which a cut at 60 would hide.
func TestComparisonKeepsExceptions(t *testing.T) {
	exc := func(code string) *scenarios.Exception {
		return &scenarios.Exception{Class: "RuntimeError", Message: "Failed to setup Mooncake store, error code: " + code}
	}
	var b bytes.Buffer
	printComparison(&b, []scenarios.Comparison{{Scenario: "setup/x", MooncakeVersion: "0.3.9", Differences: []string{"exception", "codes"},
		Engines: []scenarios.EngineOutcome{{Engine: "sim", Verdict: "pass", Exception: exc("-600")}, {Engine: "real", Verdict: "fail", Exception: exc("-1")}}}})
	for _, want := range []string{
		"  sim exception: RuntimeError: Failed to setup Mooncake store, error code: -600\n",
		" RuntimeError: Failed to setup Mooncake store, error code: -1 ",
	} {
		if !strings.Contains(b.String(), want) {
			t.Fatalf("no %q in\n%s", want, b.String())
		}
	}
}

func TestVersion(t *testing.T) {
	out, _, err := executeIn(t, "", "--version")
	if err != nil || !regexp.MustCompile(`^faultlab \S+\ncommit \S+.*\ngo1\.\d+`).MatchString(out) {
		t.Fatalf("%v %q", err, out)
	}
}

// A log without the traceback line, whose error is only in SGLang's own
// "An error occurred while loading the configuration: ..." line, still
// gives the exception as expect (not ok: true), and run agrees.
func TestNewFromLogWithoutTraceback(t *testing.T) {
	log := "Failed to set location of localhost:12385\nFailed to initialize transfer engine, rc=-200\n" +
		"Failed to create client after 20 retries\n" +
		"An error occurred while loading the configuration: Failed to setup Mooncake store, error code: -1\n"
	out, _, err := executeIn(t, log, "new", "--from-log", "-", "--name", "field/no-traceback", "--mooncake-version", "0.3.13.post1")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Parse("nt.yaml", []byte(out))
	if err != nil || sc.Expect.OK != nil || sc.Expect.Raises == nil || sc.Expect.Raises.Class != "RuntimeError" ||
		sc.Expect.Raises.Message == nil || *sc.Expect.Raises.Message != "Failed to setup Mooncake store, error code: -1" {
		t.Fatalf("%v\n%s", err, out)
	}
	f := filepath.Join(t.TempDir(), "nt.yaml")
	if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := executeIn(t, "", "run", f); err != nil {
		t.Fatalf("run %s: %v\n%s", f, err, out)
	}
}

// A log with an error no catalog scenario reproduces: new says what it
// could not reproduce, writes nothing and exits 1.
func TestNewFromUnknownLog(t *testing.T) {
	y := filepath.Join(t.TempDir(), "odd.yaml")
	out, errOut, err := executeIn(t, "LookupError: something odd happened\n", "new", "--from-log", "-", "--name", "field/odd", "-o", y)
	if exitCode(err) != exitFail || out != "" || !strings.Contains(errOut, "nothing written: no draft reproduced this log's error on the model.\n") ||
		!strings.Contains(errOut, "no catalog scenario explains this log") {
		t.Fatalf("exit %d\nstdout %q\nstderr %s", exitCode(err), out, errOut)
	}
	if _, err := os.Stat(y); !os.IsNotExist(err) {
		t.Fatalf("%s written: %v", y, err)
	}
}

// A log whose error the best catalog scenario does not reproduce on the
// model (the Mooncake lines it quotes never appear): nothing written.
func TestNewFromLogNotReproduced(t *testing.T) {
	log := "E0425 16:20:48.827250 169774 client.cpp:219] register_local_memory_failed segment_name=172.30.11.146:13062\n" +
		"Failed to register memory 0x7fa3ce000000: Input/output error [5]\n"
	out, errOut, err := executeIn(t, log, "new", "--from-log", "-")
	if exitCode(err) != exitFail || out != "" || !strings.Contains(errOut, "the log quotes: register_local_memory_failed") {
		t.Fatalf("exit %d\nstdout %q\nstderr %s", exitCode(err), out, errOut)
	}
}

// explain names a field class the catalog has no scenario for, the
// catalog scenario a class links (with the class as evidence), and says
// when nothing fits, never printing a {{placeholder}}.
func TestExplainFieldClass(t *testing.T) {
	ipc := "E0101 00:00:00.000001     7 real_client.cpp:300] Buffer 0x7f0000000000 not found in any mapped shared memory\n"
	out, _, err := executeIn(t, ipc, "explain")
	if err != nil || !strings.Contains(out, "\n1. class standalone-ipc-registration  5.0 points\n") || strings.Contains(out, "{{") {
		t.Fatalf("%v\n%s", err, out)
	}
	// A GPU registration line: the class's world, with its remedy in the
	// words of the fix on the host.
	gpu := "E0101 00:00:00.000001     7 rdma_context.cpp:300] Failed to register memory 0x7f0000000000: Bad address [14]\n"
	out, _, err = executeIn(t, gpu, "explain")
	if err != nil || !strings.Contains(out, "\n1. scenario register/gpu-peermem-missing @0.3.9  11.7 points\n") ||
		!strings.Contains(out, "+ field class gpu-memory-registration: ") ||
		!strings.Contains(out, "remedy:  on tp0 load nvidia_peermem (modprobe nvidia_peermem) → verified: starts, register_buffer [0 0], setup 0\n") {
		t.Fatalf("%v\n%s", err, out)
	}
	log := "W0302 09:15:07.980530     7 rdma_context.cpp:581] No suitable GID found on mlx5_bond_1/\n" +
		"E0302 09:15:07.980787     7 rdma_context.cpp:81] Failed to open device mlx5_bond_1 on port  with GID -1\n"
	out, _, err = executeIn(t, log, "explain")
	if err != nil || !strings.Contains(out, "\n1. scenario setup/roce-no-suitable-gid  10.0 points\n") ||
		!strings.Contains(out, "+ field class roce-gid-no-rnic: ") ||
		!strings.Contains(out, "+ line 1 (rdma_context.cpp:581): No suitable GID found on mlx5_bond_1/") ||
		!strings.Contains(out, "remedy:  set MC_GID_INDEX=3 → verified") || strings.Contains(out, "{{") {
		t.Fatalf("%v\n%s", err, out)
	}
	// One line and -1: the metadata service down or answering 500 print
	// it alike. explain names neither, and lists both.
	out, _, err = executeIn(t, metadataLog, "explain", "--mooncake-version", "0.3.13.post1")
	if exitCode(err) != exitNothing || strings.Contains(out, "{{") || !strings.Contains(out, "no cause fits this log clearly: ") ||
		!strings.Contains(out, "scenario setup/http-metadata-unreachable @0.3.13.post1") ||
		!strings.Contains(out, "scenario setup/http-metadata-answers-500 @0.3.13.post1") {
		t.Fatalf("%v\n%s", err, out)
	}
}

// A step-anchored fault works on a wall-clock engine too: on fake the
// master goes down 1 s (Mooncake time) after step 2, so the last puts fail.
func TestAnchoredFaultOnFake(t *testing.T) {
	p := filepath.Join(t.TempDir(), "anchor.yaml")
	y := `name: t/anchor
config: {env: {MOONCAKE_MASTER: "{{master}}", MOONCAKE_PROTOCOL: tcp}}
faults:
  - {after: step 2, at: 1s, kind: master-down, mode: refuse}
steps:
  - init: tp0
  - set: {pages: 2, want: [true, true]}
  - sleep: 3s
  - set: {pages: [a, b], want: [false, false]}
expect: {ok: true}
`
	if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := executeIn(t, "", "run", p, "--engine", "fake", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var rep scenarios.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Summary.Pass != len(mooncake.Defaults) || rep.Summary.Fail != 0 {
		t.Fatalf("%v %s", err, out)
	}
}

// replay's --timeout-scale defaults to the report's: its help must not
// claim a fixed default too.
func TestReplayHelpTimeoutScale(t *testing.T) {
	out, _, err := executeIn(t, "", "replay", "--help")
	if err != nil || !strings.Contains(out, "(default: the report's; 0.02 if it has none)\n") || strings.Contains(out, "(default 0.02)") {
		t.Fatalf("%v\n%s", err, out)
	}
}

// A scenario the report has, asked on another engine: say what it has,
// not a did-you-mean naming the same scenario.
func TestReplayOtherEngine(t *testing.T) {
	rep := filepath.Join(t.TempDir(), "r.json")
	if _, _, err := executeIn(t, "", "run", "setup/tenant-unsupported", "--report", rep); err != nil {
		t.Fatal(err)
	}
	_, _, err := executeIn(t, "", "replay", "--report", rep, "--scenario", "setup/tenant-unsupported", "--engine", "fake")
	want := "report " + rep + " has no result for setup/tenant-unsupported on fake; it has sim @0.3.9, sim @0.3.11.post1"
	if exitCode(err) != exitUsage || err.Error() != want {
		t.Fatalf("%v\nwant %s", err, want)
	}
	_, _, err = executeIn(t, "", "replay", "--report", rep, "--scenario", "setup/tenant-unsuported")
	if exitCode(err) != exitUsage || !strings.HasSuffix(err.Error(), `(did you mean "setup/tenant-unsupported"?)`) {
		t.Fatalf("%v", err)
	}
}

// Each command's help states its own exit statuses.
func TestExitStatusHelp(t *testing.T) {
	for cmd, want := range map[string]string{
		"run":     "  4  nothing ran: every selected run was skipped\n",
		"replay":  "  1  it differs\n",
		"explain": "  4  no cause fits the log (the nearest are listed)\n",
		"new":     "  1  nothing written: no draft reproduced the log's error (what did not is printed)\n",
	} {
		out, _, err := executeIn(t, "", cmd, "--help")
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("%s --help: %v, no %q in\n%s", cmd, err, want, out)
		}
	}
}

// A wall-clock replay compares verdict, codes, exception and death, as it
// says: not durations or times in Mooncake calls, which vary with load.
func TestCompareWallIgnoresTimings(t *testing.T) {
	res := func(setupMS float64) scenarios.Result {
		r := scenarios.Result{Scenario: "setup/x", Engine: "fake", MooncakeVersion: "0.3.13.post1", Verdict: scenarios.Pass}
		r.Observed.DurationMS = setupMS
		r.Observed.Calls = []scenarios.Call{{Method: "setup", Code: -1, MS: setupMS}}
		r.Observed.TimingsMS = map[string]float64{"setup": setupMS}
		return r
	}
	var b bytes.Buffer
	if err := compareWall(&b, res(3767), res(3222)); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	b.Reset()
	other := res(3222)
	other.Observed.Calls[0].Code = -600
	if err := compareWall(&b, res(3767), other); err == nil || !strings.Contains(b.String(), "outcome DIFFERS from the report in [codes]") {
		t.Fatalf("%v\n%s", err, b.String())
	}
}

// explain --json says why it names no cause when two fit alike, and the
// release range the log's source files imply.
func TestExplainJSONAmbiguous(t *testing.T) {
	log := "I0302 09:15:07.980798     7 client_service.cpp:288] Connecting\n" +
		"E0101 00:00:00.000000 7 worker_pool.cpp:245] Worker: Process failed for slice (opcode: 0, source_addr: 0x7f, length: 65536, dest_addr: 0x7e, local_nic: mlx5_0, peer_nic: 10.0.0.2:15000@mlx5_0, dest_rkey: 1, retry_cnt: 0): transport retry counter exceeded\n"
	out, _, err := executeIn(t, log, "explain", "--json")
	if exitCode(err) != exitNothing {
		t.Fatalf("exit %d\n%s", exitCode(err), out)
	}
	var d struct {
		Verdict   string `json:"verdict"`
		Ambiguous string `json:"ambiguous"`
		Evidence  struct {
			Range struct {
				Since string `json:"since"`
			} `json:"mooncake_range"`
		} `json:"evidence"`
		Nearest []struct {
			Name string `json:"name"`
		} `json:"nearest"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if d.Verdict != "no-fit" || !strings.HasSuffix(d.Ambiguous, "fit about equally: the log does not tell them apart") ||
		d.Evidence.Range.Since != "0.3.8" || len(d.Nearest) < 2 {
		t.Fatalf("%+v", d)
	}
}
