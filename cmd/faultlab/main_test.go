package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/mooncake"
	"github.com/mooncake-faultlab/faultlab/scenarios"
)

func execute(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRoot()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

func TestListJSON(t *testing.T) {
	out, err := execute(t, "list", "--json", "--label", "standalone", "--label", "!register", "--label", "!container", "--label", "!sglang-release")
	if err != nil {
		t.Fatal(err)
	}
	var entries []listEntry
	if err := json.Unmarshal([]byte(out), &entries); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
	}
	if strings.Join(names, " ") != "standalone/default-allocator standalone/ipc-register-metadata-refused standalone/mooncake-without-host-allocator standalone/no-client-listening standalone/root-fs-dir-read-without-local-buffer standalone/ssd-offload-disk-descriptor standalone/ssd-offload-heartbeat-client-expired standalone/ssd-offload-master-restart standalone/ssd-offload-read-stalls-client" {
		t.Fatalf("names %v", names)
	}
}

func TestRunReportReplay(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "r.json")
	out, err := execute(t, "run", "setup/tenant-unsupported", "--report", report, "--seed", "3")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "2 runs: 2 pass, 0 fail, 0 skip, 0 error") {
		t.Fatalf("output:\n%s", out)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep scenarios.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Summary != (scenarios.Summary{Pass: 2}) || rep.Results[0].Seed != 3 || rep.Results[0].MooncakeVersion != "0.3.9" {
		t.Fatalf("report %s", b)
	}
	out, err = execute(t, "replay", "--report", report, "--scenario", "setup/tenant-unsupported", "--mooncake-version", "0.3.11.post1")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "trace hash matches the report: "+rep.Results[1].TraceHash) || !strings.Contains(out, "does not support tenant_id") {
		t.Fatalf("replay output:\n%s", out)
	}
}

func TestRunFailureExitsNonZero(t *testing.T) {
	p := filepath.Join(t.TempDir(), "wrong.yaml")
	y := "name: t/wrong\nsteps: [{init: tp0}]\nconfig: {env: {MOONCAKE_MASTER: \"{{master}}\", MOONCAKE_PROTOCOL: tcp}}\nexpect: {raises: {class: RuntimeError}}\n"
	if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := execute(t, "run", p)
	if exitCode(err) != exitFail {
		t.Fatalf("err %v\n%s", err, out)
	}
	if !strings.Contains(out, "FAIL t/wrong @"+mooncake.Latest+" on sim: expected RuntimeError, observed no exception") {
		t.Fatalf("output:\n%s", out)
	}
}

func TestUnknownEngineRunsNothing(t *testing.T) {
	out, err := execute(t, "run", "--engine", "sim,warp")
	if err == nil || err.Error() != `unknown engine "warp": valid engines are sim, fake, real` || out != "" {
		t.Fatalf("err %v out %q", err, out)
	}
}

func TestSGLangFlagRefusals(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--sglang", "python"}, `unknown --sglang "python": valid choices are model, real`},
		{[]string{"run", "--sglang", "real"}, `--sglang real runs SGLang's own code in real worlds only: use --engine real (not sim)`},
		{[]string{"run", "--sglang", "model", "--sglang-version", "0.4.0"}, `--sglang-version 0.4.0: the model follows 0.5.17, 0.5.23 (and 0.5.14, 0.5.16 for the scenarios that name them)`},
	} {
		out, err := execute(t, tc.args...)
		if err == nil || err.Error() != tc.want || out != "" {
			t.Errorf("%v: err %v, want %q; out %q", tc.args, err, tc.want, out)
		}
	}
}

func TestSGLangVersionSelectsExpectations(t *testing.T) {
	// SGLang 0.5.17 registers the MHA kv_buffer once (by_sglang in the catalog).
	out, err := execute(t, "run", "setup/ssd-offload-kwargs-unsupported", "--sglang-version", "0.5.17")
	if err != nil || strings.Count(out, "register_buffer=0 setup=0") != 2 || !strings.Contains(out, "2 runs: 2 pass") {
		t.Fatalf("err %v out:\n%s", err, out)
	}
}
