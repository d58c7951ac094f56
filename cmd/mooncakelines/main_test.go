package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mooncake-faultlab/faultlab/cmd/mooncakelines/internal/sourcecov"
)

// world writes a small Mooncake repository (tag v1) and faultlab tree.
func world(t *testing.T) (mooncake, faultlab string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git in PATH")
	}
	mooncake, faultlab = t.TempDir(), t.TempDir()
	files := map[string]string{
		mooncake + "/mooncake-store/src/master_service.cpp": `void f() {
  LOG(ERROR) << "Segment " << name << " not found";
  LOG(WARNING) << "Failed to snapshot " << x;
  CHECK(ok);
}
`,
		mooncake + "/mooncake-transfer-engine/src/transport/tcp_transport/tcp_transport.cpp": `void g() {
  LOG(ERROR) << "connection refused by peer " << peer;
  PLOG(ERROR) << "Operation timeout";
}
`,
		faultlab + "/models/m.go":     `package m; var s = "Segment %s not found"`,
		faultlab + "/sim/s.go":        `package sim; var s = "connection refused by peer"`,
		faultlab + "/fakeengine/f.go": `package f`,
		faultlab + "/mooncake/k.go":   `package mooncake; var s = "timeout"`,
	}
	for p, src := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-q", "-m", "one"}, {"tag", "v1"}} {
		cmd := exec.Command("git", append([]string{"-C", mooncake, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	return mooncake, faultlab
}

func TestRunJSON(t *testing.T) {
	mooncake, faultlab := world(t)
	var out bytes.Buffer
	o := options{mooncake: mooncake, tags: []string{"v1"}, faultlab: faultlab, uncovered: true, json: true}
	if err := run(context.Background(), o, &out); err != nil {
		t.Fatal(err)
	}
	var have []result
	if err := json.Unmarshal(out.Bytes(), &have); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	// CHECK(ok) prints no text: not counted. The snapshot line is not core.
	rows := []sourcecov.Row{
		{Area: "store-client"},
		{Area: "master", Statements: 2, StmtCov: 1, StmtNone: 1, Texts: 2, TextCov: 1, Core: 1, CoreCov: 1},
		{Area: "master-ha"}, {Area: "te-core"}, {Area: "metadata"},
		{Area: "te-tcp", Statements: 2, StmtCov: 1, StmtNone: 1, Texts: 2, TextCov: 1, Core: 2, CoreCov: 1},
		{Area: "te-rdma"},
		{Area: "all", Statements: 4, StmtCov: 2, StmtNone: 2, Texts: 4, TextCov: 2, Core: 3, CoreCov: 2},
	}
	unc := []sourcecov.Line{
		{Area: "master", Text: "Failed to snapshot «»", Kind: "WARNING", Status: sourcecov.None, Where: []string{"mooncake-store/src/master_service.cpp:3"}},
		{Area: "te-tcp", Text: "Operation timeout", Kind: "PERROR", Status: sourcecov.None, Core: true, Where: []string{"mooncake-transfer-engine/src/transport/tcp_transport/tcp_transport.cpp:3"}},
	}
	if want := []result{{Tag: "v1", Rows: rows, Uncovered: unc}}; !reflect.DeepEqual(have, want) {
		t.Errorf("run -json:\n have %+v\n want %+v", have, want)
	}
}

func TestRunText(t *testing.T) {
	mooncake, faultlab := world(t)
	var out bytes.Buffer
	o := options{mooncake: mooncake, tags: []string{"v1"}, faultlab: faultlab, uncovered: true, core: true} // as -core gives
	if err := run(context.Background(), o, &out); err != nil {
		t.Fatal(err)
	}
	// Lines compared with their white space collapsed.
	var lines []string
	for _, l := range strings.Split(out.String(), "\n") {
		lines = append(lines, strings.Join(strings.Fields(l), " "))
	}
	for _, want := range []string{
		"v1",
		"area stmts covered partial none stmt cov texts covered partial text cov core texts covered partial core cov",
		"master 2 1 0 1 50% 2 1 0 50% 1 1 0 100%",
		"te-rdma 0 0 0 0 — 0 0 0 — 0 0 0 —",
		"all 4 2 0 2 50% 4 2 0 50% 3 2 0 67%",
		"te-tcp: 1 uncovered core texts (status, matched share, level, first file:line, other statements, text)",
		"none 0% PERROR mooncake-transfer-engine/src/transport/tcp_transport/tcp_transport.cpp:3 Operation timeout",
	} {
		if !slices.Contains(lines, want) {
			t.Errorf("output lacks the line %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(lines[0], "(4 Go files of faultlab's models/, sim/, fakeengine/, mooncake/;") {
		t.Errorf("first line %q does not say how many Go files it read", lines[0])
	}
	// -core: the snapshot line (not core) is not listed.
	if strings.Contains(out.String(), "snapshot") {
		t.Errorf("-core listed a line that is not core:\n%s", out.String())
	}
}

func TestParseFlags(t *testing.T) {
	o, err := parseFlags([]string{"-mooncake", "/m", "-tag", "v0.3.9, 3b5a594", "-uncovered"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := options{mooncake: "/m", tags: []string{"v0.3.9", "3b5a594"}, faultlab: ".", uncovered: true}
	if !reflect.DeepEqual(o, want) {
		t.Errorf("parseFlags = %+v, want %+v", o, want)
	}
	if o, err := parseFlags([]string{"-mooncake", "/m", "-tag", "v1", "-core"}, io.Discard); err != nil || !o.uncovered {
		t.Errorf("parseFlags(-core) = %+v, %v; want -uncovered implied", o, err)
	}
	for _, args := range [][]string{{"-tag", "v1"}, {"-mooncake", "/m"}, {"-mooncake", "/m", "-tag", "v1", "extra"}} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("parseFlags(%q): no error", args)
		}
	}
}
