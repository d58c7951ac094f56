package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestReadmeCommands runs every command the README shows, so a README that
// stops working fails CI. Its sh blocks run in order, as one user would
// type them, in one scratch directory with a freshly built bin/faultlab; a
// `make T` line is checked with `make -n T` (the target exists and
// expands: make test would run the tests from inside a test). The CI
// examples (yaml blocks) run their faultlab commands with the matrix
// variables set and the exploration bounded to a few seeds.
func TestReadmeCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs the README's commands")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(repo, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "bin", "faultlab"), ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	blocks := fencedBlocks(string(readme))
	var sh, ci int
	for _, b := range blocks {
		switch b.lang {
		case "sh":
			sh++
			runShell(t, repo, dir, b.line, b.text)
		case "yaml":
			if !strings.Contains(b.text, "bin/faultlab") {
				continue
			}
			ci++
			// Each example in a directory of its own: its reports are its own.
			sub := filepath.Join(dir, fmt.Sprintf("ci-%d", ci))
			if err := os.MkdirAll(filepath.Join(sub, "bin"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(dir, "bin", "faultlab"), filepath.Join(sub, "bin", "faultlab")); err != nil {
				t.Fatal(err)
			}
			for _, cmd := range ciCommands(t, b) {
				runShell(t, repo, sub, b.line, cmd)
			}
		}
	}
	if sh < 4 || ci < 2 {
		t.Fatalf("README: %d sh blocks and %d CI examples run; want at least 4 and 2", sh, ci)
	}
}

type fenced struct {
	lang, text string
	line       int
}

func fencedBlocks(md string) []fenced {
	var out []fenced
	var cur *fenced
	sc := bufio.NewScanner(strings.NewReader(md))
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(l, "```"):
			cur = &fenced{lang: strings.TrimPrefix(l, "```"), line: n + 1}
		case cur != nil && l == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.text += l + "\n"
		}
	}
	return out
}

var makeLine = regexp.MustCompile(`(?m)^make ([a-z-]+)(.*)$`)

// runShell runs script with bash -e in dir, make lines dry-run in repo.
func runShell(t *testing.T, repo, dir string, line int, script string) {
	t.Helper()
	script = makeLine.ReplaceAllString(script, `make -s -n -C `+repo+` $1 >/dev/null$2`)
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Join(dir, "bin")+":"+os.Getenv("PATH"), "CI_NODE_INDEX=1", "CI_NODE_TOTAL=4")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("README.md:%d: %v\n--- script\n%s--- output\n%s", line, err, script, out)
	}
}

// ciCommands are the shell lines of a CI example's run steps and scripts
// that call faultlab, made runnable here: the matrix's shard 0, the
// exploration bounded by seeds.
func ciCommands(t *testing.T, b fenced) []string {
	t.Helper()
	var doc any
	if err := yaml.Unmarshal([]byte(b.text), &doc); err != nil {
		t.Fatalf("README.md:%d: the CI example is not YAML: %v", b.line, err)
	}
	var out []string
	var walk func(v any, key string)
	walk = func(v any, key string) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				walk(c, k)
			}
		case []any:
			for _, c := range x {
				walk(c, key)
			}
		case string:
			if (key == "run" || key == "script") && strings.Contains(x, "faultlab") {
				x = strings.ReplaceAll(x, "${{ matrix.shard }}", "0")
				x = strings.ReplaceAll(x, "--time-budget 20m", "--time-budget 20m --seeds 40")
				out = append(out, x)
			}
		}
	}
	walk(doc, "")
	// Runs before merges: the merge reads what explore wrote.
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if strings.Contains(out[i], " merge ") && !strings.Contains(out[j], " merge ") {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
